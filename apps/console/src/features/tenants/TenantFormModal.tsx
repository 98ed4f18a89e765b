import { Select, Stack, TextInput } from '@mantine/core';
import { normalizeTenantName, type Tenant, tenantInputSchema } from '@voxplan/contracts';
import { planLanguages } from '@voxplan/contracts/voices';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { countryOptions, timeZoneOptions } from './dialing-options.ts';

type Values = { name: string; language: string; country: string; time_zone: string };

/** Create (no tenant) or edit (a tenant) in a small modal (spec section 2). */
export function TenantFormModal({ tenant, opened, onClose }: { tenant?: Tenant; opened: boolean; onClose(): void }) {
  const { t, i18n } = useTranslation();
  const { create, update } = useResourceMutations<Tenant, Values>('/tenants');
  const { form, formRef, onSubmit, submitting } = useSchemaForm({
    schema: tenantInputSchema,
    initialValues: { name: tenant?.name ?? '', language: tenant?.language ?? '', country: tenant?.country ?? '', time_zone: tenant?.time_zone ?? '' },
    submit: (values) => {
      const input = { name: values.name ?? '', language: values.language ?? '', country: values.country ?? '', time_zone: values.time_zone ?? '' };
      return tenant ? update.mutateAsync({ id: tenant.id, input }) : create.mutateAsync(input);
    },
    onSuccess: () => {
      toast('success', t(tenant ? 'tenants.edited' : 'tenants.created'));
      onClose();
    },
  });
  const nameProps = form.getInputProps('name');
  const countries = useMemo(() => [{ value: '', label: t('tenants.serverCountry') }, ...countryOptions(i18n.language)], [t, i18n.language]);
  const storedZone = tenant?.time_zone ?? '';
  const zones = useMemo(() => [{ value: '', label: t('tenants.serverTimeZone') }, ...timeZoneOptions(storedZone)], [t, storedZone]);
  return (
    <AppModal opened={opened} onClose={onClose} size="sm" title={useDialogTitle('tenants', tenant ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput
            label={t('tenants.name')}
            {...nameProps}
            // Spec section 5: typing keeps only the allowed characters, lowercased.
            onChange={(event) => form.setFieldValue('name', normalizeTenantName(event.currentTarget.value))}
            data-testid="tenant-name"
          />
          <Select
            label={t('tenants.language')}
            description={t('tenants.languageHint')}
            data={[{ value: '', label: t('tenants.serverLanguage') }, ...planLanguages.map(({ tag, name }) => ({ value: tag, label: `${name} · ${tag}` }))]}
            {...form.getInputProps('language')}
            allowDeselect={false}
            data-testid="tenant-language"
          />
          <Select
            label={t('tenants.country')}
            description={t('tenants.countryHint')}
            data={countries}
            searchable
            {...form.getInputProps('country')}
            allowDeselect={false}
            data-testid="tenant-country"
          />
          <Select
            label={t('tenants.timeZone')}
            description={t('tenants.timeZoneHint')}
            data={zones}
            searchable
            limit={100}
            {...form.getInputProps('time_zone')}
            allowDeselect={false}
            data-testid="tenant-time-zone"
          />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="tenant-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
