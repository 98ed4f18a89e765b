import { ActionIcon, Badge, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconRefresh } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { type DateRangePreviewInput, type DateRangeStatus, type DateRangeStatusName, dateRangePreviewSchema, exceptionOrderProblems } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { errorText } from '../../lib/errors.ts';

const statusColors: Record<DateRangeStatusName, string> = { in_hours: 'teal', out_of_hours: 'gray', holiday: 'orange' };
/** "Now" moves on: the answer is asked again every minute while the form is open. */
const REFRESH_MS = 60_000;

/** The time on the range's clock, in the interface language. */
function localTimeText(status: DateRangeStatus, language: string): string {
  return new Intl.DateTimeFormat(language === 'pt' ? 'pt-BR' : 'en', {
    timeZone: status.time_zone,
    weekday: 'long',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(status.at));
}

/** "Open now?" for the unsaved form: the server evaluates it, holidays of its place included. */
export function SchedulePreview({ range }: { range: DateRangePreviewInput }) {
  const { t, i18n } = useTranslation();
  // Debounced as text: the form hands a new object on every render.
  const [text] = useDebouncedValue(JSON.stringify(range), 300);
  const debounced = useMemo(() => JSON.parse(text) as DateRangePreviewInput, [text]);
  // Only a range the server would accept is sent (its schema, and the exceptions' order it checks
  // after): anything else would be a 400 in the server's log for each key typed, and the form's own
  // validation already speaks for it.
  const valid = dateRangePreviewSchema.safeParse(debounced).success && exceptionOrderProblems(debounced.exceptions).length === 0;
  const preview = useQuery({
    queryKey: ['/date-ranges', 'preview', debounced],
    queryFn: ({ signal }) => api.post<DateRangeStatus>('/date-ranges/preview', debounced, { signal }),
    enabled: valid,
    refetchInterval: REFRESH_MS,
  });
  const status = valid ? preview.data : undefined;

  return (
    <Paper withBorder p="md" data-testid="date-range-preview">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={4}>{t('dateRanges.preview')}</Title>
          <Tooltip label={t('dateRanges.previewAgain')}>
            <ActionIcon variant="subtle" aria-label={t('dateRanges.previewAgain')} onClick={() => void preview.refetch()} disabled={!valid} loading={preview.isFetching}>
              <IconRefresh size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
        {status ? (
          <>
            <Group gap="xs">
              <Badge color={statusColors[status.status]} variant="light" size="lg" data-testid="date-range-status">
                {t(`dateRanges.status.${status.status}`)}
              </Badge>
              {status.holiday && <Text size="sm">{t('dateRanges.holidayNamed', { name: status.holiday.name })}</Text>}
              {status.exception && <Text size="sm">{t('dateRanges.exceptionNamed', { name: status.exception.name })}</Text>}
            </Group>
            <Text size="sm" data-testid="date-range-local-time">
              {t('dateRanges.localTime', { time: localTimeText(status, i18n.language) })}
            </Text>
          </>
        ) : valid && preview.isError ? (
          <Text size="sm" c="red">
            {errorText(preview.error, t)}
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            {valid ? t('common.loading') : t('dateRanges.previewIncomplete')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
