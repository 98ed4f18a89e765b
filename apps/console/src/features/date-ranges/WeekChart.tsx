import { Box, Group, Stack, Text } from '@mantine/core';
import { type DateRangeInterval, MINUTES_PER_DAY, timeOfMinutes, weekdays, weekSegments } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';

const HOUR_MARKS = [0, 6, 12, 18, 24];
const percent = (minutes: number) => `${(minutes / MINUTES_PER_DAY) * 100}%`;

/**
 * The week as seven bars of 24 hours with the open stretches filled; an interval crossing midnight
 * shows on both days. Each bar is an image whose text alternative lists its hours.
 */
export function WeekChart({ intervals }: { intervals: readonly DateRangeInterval[] }) {
  const { t } = useTranslation();
  const segments = weekSegments(intervals);
  return (
    <Stack gap={6} role="group" aria-label={t('dateRanges.week')} data-testid="date-range-week">
      {weekdays.map((day) => {
        const dayName = t(`dateRanges.days.${day}`);
        const hours = segments[day].map((segment) => t('dateRanges.span', { from: timeOfMinutes(segment.start), to: timeOfMinutes(segment.end) })).join(', ');
        return (
          <Group key={day} gap="sm" wrap="nowrap">
            <Text size="sm" w={110} aria-hidden>
              {dayName}
            </Text>
            <Box
              role="img"
              aria-label={t('dateRanges.weekDay', { day: dayName, hours: hours || t('dateRanges.closedAllDay') })}
              data-testid={`week-${day}`}
              style={{
                position: 'relative',
                flex: 1,
                height: 16,
                borderRadius: 'var(--mantine-radius-sm)',
                background: 'var(--mantine-color-default-hover)',
                border: '1px solid var(--mantine-color-default-border)',
                overflow: 'hidden',
              }}
            >
              {segments[day].map((segment) => (
                <Box
                  key={segment.start}
                  data-open-segment={`${timeOfMinutes(segment.start)}-${timeOfMinutes(segment.end)}`}
                  style={{
                    position: 'absolute',
                    top: 0,
                    bottom: 0,
                    left: percent(segment.start),
                    width: percent(segment.end - segment.start),
                    background: 'var(--mantine-primary-color-filled)',
                  }}
                />
              ))}
            </Box>
          </Group>
        );
      })}
      <Group gap="sm" wrap="nowrap" aria-hidden>
        <Box w={110} />
        <Box style={{ position: 'relative', flex: 1, height: 16 }}>
          {HOUR_MARKS.map((hour) => (
            <Text
              key={hour}
              size="xs"
              c="dimmed"
              style={{ position: 'absolute', left: percent(hour * 60), transform: hour === 0 ? 'none' : hour === 24 ? 'translateX(-100%)' : 'translateX(-50%)' }}
            >
              {timeOfMinutes(hour * 60)}
            </Text>
          ))}
        </Box>
      </Group>
    </Stack>
  );
}
