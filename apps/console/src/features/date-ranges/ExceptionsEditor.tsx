import { ActionIcon, Button, Group, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { DateRangeForm } from './form-values.ts';

/** Named closed periods, each from an initial to a final date (both included). */
export function ExceptionsEditor({ form }: { form: DateRangeForm }) {
  const { t } = useTranslation();
  const exceptions = form.getValues().exceptions;
  return (
    <Stack gap="xs">
      {exceptions.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('dateRanges.noExceptions')}
        </Text>
      )}
      {exceptions.map((_, index) => {
        const n = index + 1;
        return (
          <Group key={index} gap="xs" align="flex-start" wrap="nowrap" data-testid="date-range-exception">
            <TextInput
              style={{ flex: 1 }}
              label={t('dateRanges.exceptionName')}
              aria-label={t('dateRanges.exceptionNameOf', { n })}
              maxLength={100}
              autoComplete="off"
              {...form.getInputProps(`exceptions.${index}.name`)}
              data-testid={`exception-${index}-name`}
            />
            <TextInput
              type="date"
              label={t('dateRanges.initialDate')}
              aria-label={t('dateRanges.initialDateOf', { n })}
              {...form.getInputProps(`exceptions.${index}.initial_date`)}
              data-testid={`exception-${index}-initial`}
            />
            <TextInput
              type="date"
              label={t('dateRanges.finalDate')}
              aria-label={t('dateRanges.finalDateOf', { n })}
              {...form.getInputProps(`exceptions.${index}.final_date`)}
              data-testid={`exception-${index}-final`}
            />
            <Tooltip label={t('dateRanges.removeException')}>
              <ActionIcon
                variant="subtle"
                color="red"
                mt={28}
                aria-label={t('dateRanges.removeException')}
                onClick={() => form.removeListItem('exceptions', index)}
                data-testid={`exception-${index}-remove`}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      })}
      <Group>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => form.insertListItem('exceptions', { name: '', initial_date: '', final_date: '' })}
          data-testid="exception-add"
        >
          {t('dateRanges.addException')}
        </Button>
      </Group>
    </Stack>
  );
}
