import { ActionIcon, DataList, Group, Paper, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { SystemInfo } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { PageError } from '../../lib/PageError.tsx';
import { formatDateTime } from '../../lib/format.ts';

type Field = 'hardware_id' | 'ip_address' | 'server_time' | 'motherboard' | 'processor' | 'ram' | 'disk';

const fields: { key: Field; labelKey: string }[] = [
  { key: 'hardware_id', labelKey: 'systemInfo.hardwareId' },
  { key: 'ip_address', labelKey: 'systemInfo.ipAddress' },
  { key: 'server_time', labelKey: 'systemInfo.serverTime' },
  { key: 'motherboard', labelKey: 'systemInfo.motherboard' },
  { key: 'processor', labelKey: 'systemInfo.processor' },
  { key: 'ram', labelKey: 'systemInfo.ram' },
  { key: 'disk', labelKey: 'systemInfo.disk' },
];

export default function SystemInfoPage() {
  const { t, i18n } = useTranslation();
  const info = useQuery({
    queryKey: ['/system/info'],
    queryFn: ({ signal }) => api.get<SystemInfo>('/system/info', { signal }),
  });
  // Used of total ("1.2 GiB of 8 GiB used"), as the dashboard says it: a free figure in brackets read as ambiguous.
  const gib = (value: number) => value.toLocaleString(i18n.language, { maximumFractionDigits: 1 });
  const size = (total: number | null, free: number | null) =>
    total === null ? null : t('systemInfo.sizeUsed', { total: gib(total), used: gib(Math.max(0, total - (free ?? 0))) });
  const valueOf = (data: SystemInfo, key: Field) => {
    if (key === 'server_time') return formatDateTime(data.server_time, i18n.language) || '—';
    if (key === 'ram') return size(data.ram_gib, data.ram_free_gib) || '—';
    if (key === 'disk') return size(data.disk_gib, data.disk_free_gib) || '—';
    // The server leaves out what only an administrator may see (docs/decisions.md).
    if ((key === 'hardware_id' || key === 'ip_address') && data[key] === null) {
      return (
        <Text span c="dimmed" fs="italic" inherit>
          {t('systemInfo.adminOnly')}
        </Text>
      );
    }
    return data[key] || '—';
  };

  return (
    <Stack maw={720}>
      <Group justify="space-between">
        <Title order={2}>{t('account.systemInfo')}</Title>
        <Tooltip label={t('systemInfo.refresh')}>
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t('systemInfo.refresh')}
            loading={info.isFetching}
            onClick={() => void info.refetch()}
            data-testid="system-info-refresh"
          >
            <IconRefresh size={16} />
          </ActionIcon>
        </Tooltip>
      </Group>
      {info.isError ? (
        <PageError error={info.error} onRetry={() => void info.refetch()} />
      ) : (
        <Paper withBorder p="lg" aria-busy={info.isFetching}>
          <DataList
            labelWidth="12rem"
            withDivider
            // The default label colour (dimmed) is below the AA contrast ratio.
            styles={{ itemLabel: { color: 'var(--mantine-color-text)', fontWeight: 600 } }}
            data-testid="system-info"
          >
            {fields.map(({ key, labelKey }) => (
              <DataList.Item key={key}>
                <DataList.ItemLabel>{t(labelKey)}</DataList.ItemLabel>
                <DataList.ItemValue data-testid={`system-info-${key.replace('_', '-')}`} style={{ wordBreak: 'break-word' }}>
                  {info.data ? valueOf(info.data, key) : <Skeleton height={16} width="60%" />}
                </DataList.ItemValue>
              </DataList.Item>
            ))}
          </DataList>
        </Paper>
      )}
    </Stack>
  );
}
