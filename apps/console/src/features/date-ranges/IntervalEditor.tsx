import { ActionIcon, Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { dateRangePresets, isEndTime, isStartTime, minutesOf, presetIntervals, presetOf, weekdays } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { MaskedInput } from '../../lib/forms/MaskedInput.tsx';
import type { DateRangeForm } from './form-values.ts';

const crossesMidnight = (start: string, end: string) => isStartTime(start) && isEndTime(end) && minutesOf(end) < minutesOf(start) && end !== '00:00';

/** The weekly intervals, day by day: preset buttons, and rows to add or remove on each day. */
export function IntervalEditor({ form }: { form: DateRangeForm }) {
  const { t } = useTranslation();
  const intervals = form.getValues().intervals;
  const preset = presetOf(intervals);
  const indexed = intervals.map((interval, index) => ({ interval, index }));

  return (
    <Stack gap="xs">
      <Group gap="xs" align="center">
        <Text size="sm" fw={500}>
          {t('dateRanges.presets')}
        </Text>
        {dateRangePresets.map((name) => (
          <Button
            key={name}
            size="xs"
            variant={preset === name ? 'filled' : 'default'}
            aria-pressed={preset === name}
            onClick={() => form.setFieldValue('intervals', presetIntervals(name))}
            data-testid={`date-range-preset-${name}`}
          >
            {t(`dateRanges.preset.${name}`)}
          </Button>
        ))}
      </Group>
      {weekdays.map((day) => {
        const dayName = t(`dateRanges.days.${day}`);
        const rows = indexed.filter((row) => row.interval.day === day);
        return (
          <Group key={day} align="flex-start" gap="sm" wrap="nowrap" data-testid={`date-range-day-${day}`}>
            <Text size="sm" w={110} pt={6}>
              {dayName}
            </Text>
            <Stack gap={4} style={{ flex: 1 }}>
              {rows.length === 0 && (
                <Text size="sm" c="dimmed" pt={6}>
                  {t('dateRanges.closedAllDay')}
                </Text>
              )}
              {rows.map(({ interval, index }, n) => (
                <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
                  <MaskedInput
                    mask="time"
                    w={130}
                    placeholder={t('dateRanges.timePlaceholder')}
                    aria-label={t('dateRanges.startOf', { day: dayName, n: n + 1 })}
                    autoComplete="off"
                    {...form.getInputProps(`intervals.${index}.start`)}
                    value={interval.start}
                    data-testid={`interval-${day}-${n}-start`}
                  />
                  <MaskedInput
                    mask="time"
                    w={130}
                    placeholder={t('dateRanges.timePlaceholder')}
                    aria-label={t('dateRanges.endOf', { day: dayName, n: n + 1 })}
                    autoComplete="off"
                    {...form.getInputProps(`intervals.${index}.end`)}
                    value={interval.end}
                    data-testid={`interval-${day}-${n}-end`}
                  />
                  {crossesMidnight(interval.start, interval.end) && (
                    <Badge variant="light" color="grape" mt={6}>
                      {t('dateRanges.nextDay')}
                    </Badge>
                  )}
                  <Tooltip label={t('dateRanges.removeInterval')}>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      mt={4}
                      aria-label={t('dateRanges.removeInterval')}
                      onClick={() => form.removeListItem('intervals', index)}
                      data-testid={`interval-${day}-${n}-remove`}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              ))}
            </Stack>
            <Tooltip label={t('dateRanges.addInterval', { day: dayName })}>
              <ActionIcon
                variant="light"
                mt={4}
                aria-label={t('dateRanges.addInterval', { day: dayName })}
                onClick={() => form.insertListItem('intervals', { day, start: '', end: '' })}
                data-testid={`interval-add-${day}`}
              >
                <IconPlus size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      })}
    </Stack>
  );
}
