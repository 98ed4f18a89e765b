import { Alert, Button, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { type HolidayImportResult, holidayImportSchema, holidayYearRange } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';

type Values = { country: string; state: string; year: number | string };

/** One year of a country's (and a state's) public holidays, from the date-holidays calendar; says what it added. */
export function HolidayImportModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const { invalidate } = useResourceMutations('/holidays');
  const [result, setResult] = useState<HolidayImportResult | null>(null);

  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema: holidayImportSchema,
    initialValues: { country: 'BR', state: '', year: new Date().getFullYear() },
    submit: (values) => api.post<HolidayImportResult>('/holidays/import', values),
    onSuccess: (answer) => {
      setResult(answer as HolidayImportResult);
      void invalidate();
    },
  });
  const upper = (field: 'country' | 'state') => {
    const props = form.getInputProps(field);
    return { ...props, onChange: (event: React.ChangeEvent<HTMLInputElement>) => form.setFieldValue(field, event.currentTarget.value.toUpperCase()) };
  };

  return (
    <AppModal opened={opened} onClose={onClose} size="md" title={t('holidays.importTitle')}>
      {result ? (
        <Stack>
          <Alert color="teal" icon={<IconCircleCheck size={18} />} data-testid="holiday-import-summary">
            <Text size="sm">{t('holidays.importSummary', { added: result.added, skipped: result.skipped })}</Text>
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose} data-testid="holiday-import-close">
              {t('common.close')}
            </Button>
          </Group>
        </Stack>
      ) : (
        <form ref={formRef} onSubmit={onSubmit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              {t('holidays.importHint')}
            </Text>
            <TextInput
              label={t('holidays.country')}
              description={t('holidays.countryHint')}
              withAsterisk
              maxLength={2}
              autoComplete="off"
              {...upper('country')}
              data-testid="holiday-import-country"
            />
            <TextInput
              label={t('holidays.state')}
              description={t('holidays.importStateHint')}
              maxLength={3}
              autoComplete="off"
              {...upper('state')}
              data-testid="holiday-import-state"
            />
            <NumberInput
              label={t('holidays.year')}
              withAsterisk
              min={holidayYearRange.min}
              max={holidayYearRange.max}
              allowDecimal={false}
              {...form.getInputProps('year')}
              data-testid="holiday-import-year"
            />
            <FormActions onCancel={onClose} submitting={submitting} submitTestId="holiday-import-submit" submitLabel={t('holidays.importAction')} />
          </Stack>
        </form>
      )}
    </AppModal>
  );
}
