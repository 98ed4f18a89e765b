import { Stack, TextInput } from '@mantine/core';
import { type VisualPlan, type VisualPlanDocument, visualPlanDuplicateSchema, visualPlanLimits } from '@voxplan/contracts/visual-plan';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { PLANS } from './plans-api.ts';

/** A copy of a plan's draft (not of its versions), under a name of the user's or the server's "<name> (copy)". */
export function PlanDuplicateModal({ plan, onClose }: { plan: VisualPlan; onClose(): void }) {
  const { t } = useTranslation();
  const { invalidate } = useResourceMutations(PLANS);
  const { form, formRef, onSubmit, submitting } = useSchemaForm<{ name: string }>({
    schema: visualPlanDuplicateSchema,
    initialValues: { name: '' },
    submit: (values) => api.post<VisualPlanDocument>(`${PLANS}/${plan.id}/duplicate`, values),
    onSuccess: (copy) => {
      void invalidate();
      toast('success', t('plans.duplicated', { name: (copy as VisualPlanDocument).name }));
      onClose();
    },
  });

  return (
    <AppModal opened onClose={onClose} size="md" title={t('plans.duplicateTitle', { name: plan.name })}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TextInput
            label={t('plans.copyName')}
            description={t('plans.copyNameHint')}
            placeholder={t('plans.copyNamePlaceholder', { name: plan.name })}
            autoComplete="off"
            maxLength={visualPlanLimits.name}
            {...form.getInputProps('name')}
            data-testid="plan-duplicate-name"
          />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="plan-duplicate-save" submitLabel={t('plans.duplicate')} />
        </Stack>
      </form>
    </AppModal>
  );
}
