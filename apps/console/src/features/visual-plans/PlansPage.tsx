import { Anchor, Badge, Button, Group } from '@mantine/core';
import { IconCopy, IconFileImport, IconPlus, IconSitemap } from '@tabler/icons-react';
import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useCanWrite } from '../../lib/auth.tsx';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { RowAction } from '../../lib/table/RowAction.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { PlanDuplicateModal } from './PlanDuplicateModal.tsx';
import { PlanExportMenu } from './PlanExportMenu.tsx';
import { PlanFormModal } from './PlanFormModal.tsx';
import { PlanImportModal } from './PlanImportModal.tsx';
import { PLANS, planEditorPath } from './plans-api.ts';

function NotPublished() {
  const { t } = useTranslation();
  return (
    <Badge variant="dot" color="gray" data-testid="plan-not-published">
      {t('plans.notPublished')}
    </Badge>
  );
}

const columns: Column<VisualPlan>[] = [
  {
    field: 'name',
    labelKey: 'plans.name',
    type: 'text',
    render: (plan) => (
      <Anchor component={Link} to={planEditorPath(plan)} size="sm" data-testid="plan-open-link">
        {plan.name}
      </Anchor>
    ),
  },
  { field: 'description', labelKey: 'plans.description', type: 'text' },
  { field: 'version', labelKey: 'plans.version', type: 'number' },
  { field: 'published_version', labelKey: 'plans.publishedVersion', type: 'number', render: (plan) => plan.published_version ?? <NotPublished /> },
  // The user's name comes with the plan (the user list is the administrators'); it is no column a filter may name.
  { field: 'updated_by_name', labelKey: 'plans.updatedBy', type: 'text', sortable: false, filterable: false },
  { field: 'updated_time', labelKey: 'plans.updatedTime', type: 'date' },
];

const searchFields = ['name', 'description'];

type Dialog = { kind: 'create' } | { kind: 'import' } | { kind: 'rename'; plan: VisualPlan } | { kind: 'duplicate'; plan: VisualPlan };

/** The tenant's plans: opened in the editor, created, renamed, duplicated, imported, exported and removed. */
export default function PlansPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const canWrite = useCanWrite();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const removeRow = useRemoveRow(PLANS);
  const close = () => setDialog(null);

  return (
    <>
      <DataTable<VisualPlan>
        tableId="visual-plans"
        resource={PLANS}
        titleKey="nav.visualPlan"
        columns={columns}
        searchFields={searchFields}
        defaultSort={{ field: 'name', direction: 'ASC' }}
        canRemove={() => true}
        toolbar={
          <Group gap="xs">
            <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={() => setDialog({ kind: 'import' })} data-testid="plan-import">
              {t('plans.import')}
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setDialog({ kind: 'create' })} data-testid="plan-new">
              {t('plans.new')}
            </Button>
          </Group>
        }
        rowActions={(plan) => (
          <>
            <RowAction label={t('plans.open')} icon={<IconSitemap size={16} />} onClick={() => void navigate(planEditorPath(plan))} testId="plan-open" />
            <EditRemoveActions
              testIdPrefix="plan"
              editLabel={t('plans.rename')}
              onEdit={() => setDialog({ kind: 'rename', plan })}
              onRemove={() => removeRow(plan.id)}
            >
              {canWrite && <RowAction label={t('plans.duplicate')} icon={<IconCopy size={16} />} onClick={() => setDialog({ kind: 'duplicate', plan })} testId="plan-duplicate" />}
              <PlanExportMenu plan={plan} />
            </EditRemoveActions>
          </>
        )}
      />
      {dialog?.kind === 'create' && <PlanFormModal onClose={close} />}
      {dialog?.kind === 'rename' && <PlanFormModal plan={dialog.plan} onClose={close} />}
      {dialog?.kind === 'duplicate' && <PlanDuplicateModal plan={dialog.plan} onClose={close} />}
      {dialog?.kind === 'import' && <PlanImportModal onClose={close} />}
    </>
  );
}
