import { Stack, Textarea, TextInput } from '@mantine/core';
import { type AclEntry, aclAddressMaxLength, aclCreateSchema, aclUpdateSchema } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { MaskedInput } from '../../lib/forms/MaskedInput.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';

type AclValues = { name: string; address: string; description: string };

/** Create (no entry) or edit (an entry); the server stores the address in its canonical form. */
export function AclFormModal({ entry, opened, onClose }: { entry?: AclEntry; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const tenant = useTenantChoice(!entry);
  const { create, update } = useResourceMutations<AclEntry, Partial<AclValues>>('/acl', { createIn: tenant.tenantId });
  const { form, formRef, onSubmit, submitting } = useSchemaForm<AclValues>({
    schema: entry ? aclUpdateSchema : aclCreateSchema,
    tenant,
    initialValues: { name: entry?.name ?? '', address: entry?.address ?? '', description: entry?.description ?? '' },
    submit: (values) => (entry ? update.mutateAsync({ id: entry.id, input: values }) : create.mutateAsync(values)),
    onSuccess: () => {
      toast('success', t(entry ? 'acl.edited' : 'acl.created'));
      onClose();
    },
  });
  return (
    <AppModal closeButtonProps={{ 'aria-label': t('common.close') }} opened={opened} onClose={onClose} size="md" title={useDialogTitle('acl', entry ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <TextInput label={t('acl.name')} withAsterisk autoComplete="off" maxLength={100} {...form.getInputProps('name')} data-testid="acl-name" />
          <MaskedInput
            mask="ip"
            label={t('acl.address')}
            description={t('acl.addressHint')}
            withAsterisk
            autoComplete="off"
            spellCheck={false}
            maxLength={aclAddressMaxLength}
            {...form.getInputProps('address')}
            value={form.values.address}
            data-testid="acl-address"
          />
          <Textarea label={t('acl.description')} autosize minRows={2} maxRows={6} maxLength={500} {...form.getInputProps('description')} data-testid="acl-description" />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="acl-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
