import { FileInput, Stack } from '@mantine/core';
import { IconFileImport } from '@tabler/icons-react';
import type { ErrorDetail } from '@voxplan/contracts';
import { type VisualPlanDocument, visualPlanCreateSchema, visualPlanLimits } from '@voxplan/contracts/visual-plan';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { api, ApiError } from '../../lib/api/client.ts';
import { AppModal } from '../../lib/AppModal.tsx';
import { showError } from '../../lib/errors.ts';
import { FormActions } from '../../lib/forms/FormActions.tsx';
import { TenantChoiceField, useTenantChoice } from '../../lib/forms/tenant-choice.tsx';
import { useSchemaForm } from '../../lib/forms/use-schema-form.ts';
import { toast } from '../../lib/notify.ts';
import { useResourceMutations } from '../../lib/table/use-resource.ts';
import { PlanIssueList } from './PlanIssueList.tsx';
import { PlanNameFields } from './PlanNameFields.tsx';
import { PLANS } from './plans-api.ts';

type Values = { name: string; description: string; file: File | null };
type PlanFile = Record<string, unknown>;

/** The file's content when it is a JSON object (what export writes), else null. */
async function readPlanFile(file: File): Promise<PlanFile | null> {
  try {
    const content: unknown = JSON.parse(await file.text());
    return typeof content === 'object' && content !== null && !Array.isArray(content) ? (content as PlanFile) : null;
  } catch {
    return null;
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * A plan from a file export wrote (any older format is migrated by the server). The name and
 * description come from the file and may be changed, e.g. when the name is taken. What the server
 * finds wrong with the blocks is listed here, since there is no canvas to mark it on.
 */
export function PlanImportModal({ onClose }: { onClose(): void }) {
  const { t } = useTranslation();
  const { invalidate } = useResourceMutations(PLANS);
  const tenant = useTenantChoice(true);
  const [content, setContent] = useState<PlanFile | null>(null);
  const [issues, setIssues] = useState<ErrorDetail[]>([]);

  const schema = useMemo(
    () =>
      visualPlanCreateSchema.extend({
        file: z
          .custom<File>((value) => value instanceof File, 'required')
          .refine(() => content !== null, t('plans.importNotPlan')),
      }),
    [content, t],
  );

  const { form, formRef, onSubmit, submitting } = useSchemaForm<Values>({
    schema,
    tenant,
    initialValues: { name: '', description: '', file: null },
    submit: (values) => {
      setIssues([]);
      return api.post<VisualPlanDocument>(`${PLANS}/import`, { ...content, name: values.name, description: values.description ?? '' }, { tenantId: tenant.tenantId });
    },
    onSuccess: (plan) => {
      void invalidate();
      toast('success', t('plans.imported', { name: (plan as VisualPlanDocument).name }));
      onClose();
    },
    // The blocks' problems are listed in the dialog; a toast saying "see the marked blocks" would point nowhere.
    hideError: true,
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'invalid_plan') setIssues(error.body?.details ?? []);
      else showError(error, t);
    },
  });

  const chooseFile = async (file: File | null) => {
    form.setFieldValue('file', file);
    setIssues([]);
    const read = file ? await readPlanFile(file) : null;
    setContent(read);
    if (file && !read) form.setFieldError('file', t('plans.importNotPlan'));
    else form.clearFieldError('file');
    if (read) {
      form.setFieldValue('name', text(read.name).slice(0, visualPlanLimits.name));
      form.setFieldValue('description', text(read.description).slice(0, visualPlanLimits.description));
    }
  };

  return (
    <AppModal opened onClose={onClose} size="lg" title={t('plans.importTitle')}>
      <form ref={formRef} onSubmit={onSubmit} noValidate>
        <Stack>
          <TenantChoiceField choice={tenant} />
          <FileInput
            label={t('plans.importFile')}
            description={t('plans.importFileHint')}
            placeholder={t('plans.importFilePlaceholder')}
            withAsterisk
            clearable
            accept="application/json,.json"
            leftSection={<IconFileImport size={16} />}
            {...form.getInputProps('file')}
            onChange={(file) => void chooseFile(file)}
            data-testid="plan-import-file"
          />
          <PlanNameFields name={form.getInputProps('name')} description={form.getInputProps('description')} testIdPrefix="plan-import" />
          {issues.length > 0 && <PlanIssueList issues={issues} />}
          <FormActions onCancel={onClose} submitting={submitting} submitTestId="plan-import-save" submitLabel={t('plans.importAction')} />
        </Stack>
      </form>
    </AppModal>
  );
}
