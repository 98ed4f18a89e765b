import { Stack } from '@mantine/core';
import { type VisualPlan, visualPlanCreateSchema, visualPlanUpdateSchema } from '@voxplan/contracts/visual-plan';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AppModal, useDialogTitle } from '../../lib/AppModal.tsx';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { PlanNameFields } from './PlanNameFields.tsx';
import { PLANS, planEditorPath } from './plans-api.ts';

type Values = { name: string; description: string };

/** A new plan (then opened in the editor), or a plan's new name and description: the document is the editor's. */
export function PlanFormModal({ plan, onClose }: { plan?: VisualPlan; onClose(): void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const tenant = useTenantChoice(!plan);
  const { create, update } = useResourceMutations<VisualPlan, Partial<Values>>(PLANS, { createIn: tenant.tenantId });
  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    // A rename keeps a name: an emptied field is sent as '' and refused.
    schema: plan ? visualPlanUpdateSchema.required({ name: true }) : visualPlanCreateSchema,
    tenant,
    initialValues: { name: plan?.name ?? '', description: plan?.description ?? '' },
    submit: (values) => (plan ? update.mutateAsync({ id: plan.id, input: values }) : create.mutateAsync(values)),
    onSuccess: (saved) => {
      toast('success', t(plan ? 'plans.renamed' : 'plans.created'));
      onClose();
      if (!plan) void navigate(planEditorPath(saved as VisualPlan));
    },
  });

  return (
    <AppModal opened onClose={onClose} size="md" title={useDialogTitle('plans', plan ? 'rename' : 'create')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <PlanNameFields name={form.getInputProps('name')} description={form.getInputProps('description')} testIdPrefix="plan" />
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="plan-save" submitLabel={plan ? undefined : t('plans.createAction')} />
        </Stack>
      </form>
    </AppModal>
  );
}
