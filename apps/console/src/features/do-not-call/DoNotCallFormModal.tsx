import { Stack, Textarea, TextInput } from '@mantine/core';
import { type DoNotCallEntry, doNotCallCreateSchema, doNotCallLimits, doNotCallUpdateSchema } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { DO_NOT_CALL } from './use-do-not-call.ts';

type Values = { number: string; reason: string };

/** Add (no entry) or edit (an entry): the number in any form, read by the server with the tenant's country. */
export function DoNotCallFormModal({ entry, opened, onClose }: { entry?: DoNotCallEntry; opened: boolean; onClose(): void }) {
  const { t } = useTranslation();
  const tenant = useTenantChoice(!entry);
  const { create, update } = useResourceMutations<DoNotCallEntry, Partial<Values>>(DO_NOT_CALL, { createIn: tenant.tenantId });
  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema: entry ? doNotCallUpdateSchema : doNotCallCreateSchema,
    initialValues: { number: entry?.number ?? '', reason: entry?.reason ?? '' },
    tenant,
    submit: (values) => (entry ? update.mutateAsync({ id: entry.id, input: values }) : create.mutateAsync(values)),
    onSuccess: () => {
      toast('success', t(entry ? 'doNotCall.edited' : 'doNotCall.added'));
      onClose();
    },
  });

  return (
    <AppModal opened={opened} onClose={onClose} size="md" title={useDialogTitle('doNotCall', entry ? 'edit' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <TextInput
            label={t('doNotCall.number')}
            description={t('doNotCall.numberHint')}
            withAsterisk
            autoComplete="off"
            inputMode="tel"
            maxLength={doNotCallLimits.number}
            {...form.getInputProps('number')}
            data-testid="dnc-number"
          />
          <Textarea
            label={t('doNotCall.reason')}
            autosize
            minRows={2}
            maxLength={doNotCallLimits.reason}
            {...form.getInputProps('reason')}
            data-testid="dnc-reason"
          />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="dnc-save" />
        </Stack>
      </form>
    </AppModal>
  );
}
