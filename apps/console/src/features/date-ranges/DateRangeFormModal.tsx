import { Grid, Group, Select, Stack, TextInput, Title } from '@mantine/core';
import { checkExceptionOrder, type DateRange, dateRangeCreateSchema } from '@voxplan/contracts';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { FormSection } from '../../lib/forms/FormSection.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { ExceptionsEditor } from './ExceptionsEditor.tsx';
import { type DateRangeValues, initialValues } from './form-values.ts';
import { IntervalEditor } from './IntervalEditor.tsx';
import { SchedulePreview } from './SchedulePreview.tsx';
import { WeekChart } from './WeekChart.tsx';

// The form always holds the whole range, so creating and editing validate alike; the exceptions'
// order is checked here as the server does (it answers initial_date_after_final_date).
const formSchema = dateRangeCreateSchema.superRefine(checkExceptionOrder);

/** The zones the browser knows, plus the range's own when the list spells it another way. */
function zoneOptions(current: string): string[] {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return current && !zones.includes(current) ? [current, ...zones] : zones;
}

/** Create (no range) or edit (a range): zone, weekly hours, exceptions, place, and what they mean now. */
export function DateRangeFormModal({ range, opened, onClose }: { range?: DateRange; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const tenant = useTenantChoice(!range);
  const { create, update } = useResourceMutations<DateRange, Partial<DateRangeValues>>('/date-ranges', { createIn: tenant.tenantId });
  const initial = useMemo(() => initialValues(range), [range]);
  const { form, formRef, onSubmit, submitting } = useSchemaForm<DateRangeValues>({
    schema: formSchema,
    initialValues: initial,
    tenant,
    submit: (values) => (range ? update.mutateAsync({ id: range.id, input: values }) : create.mutateAsync(values)),
    onSuccess: () => {
      toast('success', t(range ? 'dateRanges.edited' : 'dateRanges.created'));
      onClose();
    },
  });
  const values = form.getValues();
  const zones = useMemo(() => zoneOptions(values.time_zone), [values.time_zone]);
  const upper = (field: 'country' | 'state') => {
    const props = form.getInputProps(field);
    return { ...props, onChange: (event: React.ChangeEvent<HTMLInputElement>) => form.setFieldValue(field, event.currentTarget.value.toUpperCase()) };
  };

  return (
    <AppModal opened={opened} onClose={onClose} size="5xl" title={useDialogTitle('dateRanges', range ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <Grid>
            <Grid.Col span={{ base: 12, md: 6 }}>
              <TextInput label={t('dateRanges.name')} withAsterisk autoComplete="off" maxLength={100} {...form.getInputProps('name')} data-testid="date-range-name" />
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 6 }}>
              <Select
                label={t('dateRanges.timeZone')}
                description={t('dateRanges.timeZoneHint')}
                placeholder={t('dateRanges.timeZoneSearch')}
                withAsterisk
                searchable
                allowDeselect={false}
                limit={50}
                nothingFoundMessage={t('dateRanges.noZone')}
                data={zones}
                {...form.getInputProps('time_zone')}
                data-testid="date-range-time-zone"
              />
            </Grid.Col>
          </Grid>

          <FormSection title={t('dateRanges.hours')} hint={t('dateRanges.hoursHint')}>
            <IntervalEditor form={form} />
          </FormSection>

          <Grid>
            <Grid.Col span={{ base: 12, md: 7 }}>
              <Stack gap="xs">
                <Title order={4}>{t('dateRanges.week')}</Title>
                <WeekChart intervals={values.intervals} />
              </Stack>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 5 }}>
              <SchedulePreview
                range={{ time_zone: values.time_zone, intervals: values.intervals, exceptions: values.exceptions, country: values.country, state: values.state, city: values.city }}
              />
            </Grid.Col>
          </Grid>

          <FormSection title={t('dateRanges.exceptions')} hint={t('dateRanges.exceptionsHint')}>
            <ExceptionsEditor form={form} />
          </FormSection>

          <FormSection title={t('dateRanges.location')} hint={t('dateRanges.locationHint')}>
            <Group grow align="flex-end">
              <TextInput
                label={t('dateRanges.country')}
                description={t('dateRanges.countryHint')}
                maxLength={2}
                autoComplete="off"
                {...upper('country')}
                data-testid="date-range-country"
              />
              <TextInput label={t('dateRanges.state')} maxLength={100} autoComplete="off" {...upper('state')} data-testid="date-range-state" />
              <TextInput label={t('dateRanges.city')} maxLength={100} autoComplete="off" {...form.getInputProps('city')} data-testid="date-range-city" />
            </Group>
          </FormSection>

          <FormActions onCancel={onClose} submitting={submitting} submitTestId="date-range-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
