import { ActionIcon, Group, Select, Tooltip } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** Seconds between automatic refreshes; 0 is off. */
export const AUTO_REFRESH_SECONDS = [0, 5, 10, 30, 60, 300] as const;

/**
 * The automatic refresh interval in seconds (0: off) and its setter, remembered in
 * localStorage under `auto-refresh:<key>`; a stored value no longer offered counts as off.
 */
export function useAutoRefresh(key: string): [number, (seconds: number) => void] {
  const [seconds, setSeconds] = useLocalStorage<number>({ key: `auto-refresh:${key}`, defaultValue: 0, getInitialValueInEffect: false });
  const offered = (AUTO_REFRESH_SECONDS as readonly number[]).includes(seconds) ? seconds : 0;
  return [offered, setSeconds];
}

/** The interval picker and the refresh-now button that tables and the dashboard show. */
export function RefreshControl({
  seconds,
  onIntervalChange,
  onRefresh,
  refreshing,
  testId,
}: {
  seconds: number;
  onIntervalChange(seconds: number): void;
  onRefresh(): void;
  refreshing: boolean;
  testId: string;
}) {
  const { t } = useTranslation();
  return (
    <Group gap="xs" wrap="nowrap">
      <Select
        aria-label={t('table.autoRefresh')}
        data={AUTO_REFRESH_SECONDS.map((seconds) => ({
          value: String(seconds),
          label: seconds === 0 ? t('table.autoRefreshOff') : t('table.everySeconds', { count: seconds }),
        }))}
        value={String(seconds)}
        onChange={(value) => onIntervalChange(Number(value ?? 0))}
        w={250}
        allowDeselect={false}
        data-testid={`${testId}-interval`}
      />
      <Tooltip label={t('table.refresh')}>
        <ActionIcon variant="default" size="lg" aria-label={t('table.refresh')} loading={refreshing} onClick={onRefresh} data-testid={testId}>
          <IconRefresh size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}
