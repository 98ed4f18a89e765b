import { Group, Select, Stack, Switch, TextInput } from '@mantine/core';
import { checkHolidayLevel, type Holiday, type HolidayLevel, holidayCreateSchema, holidayLevels, holidayUpdateSchema } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { levelLabelKey } from './levels.ts';

type Values = { name: string; date: string; recurring: boolean; level: HolidayLevel; country: string; state: string; city: string };

/** Create (no holiday) or edit (a holiday); the state and city fields follow the level. */
export function HolidayFormModal({ holiday, opened, onClose }: { holiday?: Holiday; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const { create, update } = useResourceMutations<Holiday, Partial<Values>>('/holidays');
  // An edit sends the whole form, so the level rules apply to it as they do on creation.
  const schema = useMemo(() => (holiday ? holidayUpdateSchema.superRefine(checkHolidayLevel) : holidayCreateSchema), [holiday]);

  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema,
    initialValues: holiday
      ? { name: holiday.name, date: holiday.date, recurring: holiday.recurring, level: holiday.level, country: holiday.country, state: holiday.state, city: holiday.city }
      : { name: '', date: '', recurring: false, level: 'national', country: '', state: '', city: '' },
    submit: (values) => (holiday ? update.mutateAsync({ id: holiday.id, input: values }) : create.mutateAsync(values)),
    onSuccess: () => {
      toast('success', t(holiday ? 'holidays.edited' : 'holidays.created'));
      onClose();
    },
  });
  const level = form.getValues().level;
  const upper = (field: 'country' | 'state') => {
    const props = form.getInputProps(field);
    return { ...props, onChange: (event: React.ChangeEvent<HTMLInputElement>) => form.setFieldValue(field, event.currentTarget.value.toUpperCase()) };
  };

  return (
    <AppModal opened={opened} onClose={onClose} size="lg" title={useDialogTitle('holidays', holiday ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput label={t('holidays.name')} withAsterisk autoComplete="off" {...form.getInputProps('name')} data-testid="holiday-name" />
          <Group grow align="flex-start">
            <TextInput label={t('holidays.date')} type="date" withAsterisk {...form.getInputProps('date')} data-testid="holiday-date" />
            <Switch
              mt={30}
              label={t('holidays.recurring')}
              description={t('holidays.recurringHint')}
              {...form.getInputProps('recurring', { type: 'checkbox' })}
              data-testid="holiday-recurring"
            />
          </Group>
          <Group grow align="flex-start">
            <Select
              label={t('holidays.level')}
              withAsterisk
              allowDeselect={false}
              data={holidayLevels.map((value) => ({ value, label: t(levelLabelKey(value)) }))}
              {...form.getInputProps('level')}
              onChange={(value) => {
                const next = (value ?? 'national') as HolidayLevel;
                form.setFieldValue('level', next);
                // A national holiday names no state or city, a state one no city.
                if (next === 'national') form.setFieldValue('state', '');
                if (next !== 'city') form.setFieldValue('city', '');
              }}
              data-testid="holiday-level"
            />
            <TextInput
              label={t('holidays.country')}
              description={t('holidays.countryHint')}
              withAsterisk
              maxLength={2}
              autoComplete="off"
              {...upper('country')}
              data-testid="holiday-country"
            />
          </Group>
          {level !== 'national' && (
            <Group grow align="flex-start">
              <TextInput label={t('holidays.state')} withAsterisk autoComplete="off" {...upper('state')} data-testid="holiday-state" />
              {level === 'city' && <TextInput label={t('holidays.city')} withAsterisk autoComplete="off" {...form.getInputProps('city')} data-testid="holiday-city" />}
            </Group>
          )}
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="holiday-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
