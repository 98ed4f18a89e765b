import { Button, Group, Stack, TextInput } from '@mantine/core';
import { normalizeTenantName, type Tenant, tenantInputSchema } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { AppModal } from '../../lib/AppModal.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';

/** Create (no tenant) or edit (a tenant) in a small modal (spec section 2). */
export function TenantFormModal({ tenant, opened, onClose }: { tenant?: Tenant; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const { create, update } = useResourceMutations<Tenant, { name: string }>('/tenants');
  const { form, formRef, onSubmit, submitting } = useSchemaForm({
    schema: tenantInputSchema,
    initialValues: { name: tenant?.name ?? '' },
    submit: (values) => (tenant ? update.mutateAsync({ id: tenant.id, input: { name: values.name ?? '' } }) : create.mutateAsync({ name: values.name ?? '' })),
    onSuccess: () => {
      toast('success', t(tenant ? 'tenants.edited' : 'tenants.created'));
      onClose();
    },
  });
  const nameProps = form.getInputProps('name');
  return (
    <AppModal opened={opened} onClose={onClose} size="sm" title={t(tenant ? 'tenants.editTitle' : 'tenants.createTitle')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput
            label={t('tenants.name')}
            {...nameProps}
            // Spec section 5: typing keeps only the allowed characters, lowercased.
            onChange={(event) => form.setFieldValue('name', normalizeTenantName(event.currentTarget.value))}
            data-testid="tenant-name"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={submitting} data-testid="tenant-save">
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </AppModal>
  );
}
