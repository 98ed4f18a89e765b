import { Button, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { type Campaign, campaignStatuses } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { EditRemoveActions } from '../../lib/table/EditRemoveActions.tsx';
import { useRemoveRow } from '../../lib/table/use-remove-row.ts';
import { CampaignControls } from './CampaignControls.tsx';
import { CampaignFormModal } from './CampaignFormModal.tsx';
import { ProgressBar, progressText } from './CampaignProgressView.tsx';
import { CAMPAIGNS, isFinished } from './status.ts';
import { StatusBadge } from './StatusBadge.tsx';
import { useCampaignProgress } from './use-campaigns.ts';

/** Done of total, and a thin bar; live while the campaign runs. */
function ProgressCell({ campaign }: { campaign: Campaign }) {
  const { i18n } = useTranslation();
  const progress = useCampaignProgress(campaign);
  return (
    <Stack gap={4} miw={110}>
      <Text size="sm" data-testid="campaign-row-progress">
        {progressText(progress.data, i18n.language)}
      </Text>
      <ProgressBar progress={progress.data} size="sm" />
    </Stack>
  );
}

const statusOptions = campaignStatuses.map((value) => ({ value, labelKey: `campaigns.statuses.${value}` }));

const columns: Column<Campaign>[] = [
  { field: 'name', labelKey: 'campaigns.name', type: 'text' },
  { field: 'plan_name', labelKey: 'campaigns.plan', type: 'text' },
  { field: 'number', labelKey: 'campaigns.fromNumber', type: 'text', render: (campaign) => <Text size="sm" ff="monospace">{campaign.number}</Text> },
  { field: 'status', labelKey: 'campaigns.status', type: 'enum', options: statusOptions, render: (campaign) => <StatusBadge status={campaign.status} /> },
  { field: 'progress', labelKey: 'campaigns.progress.title', type: 'text', sortable: false, filterable: false, render: (campaign) => <ProgressCell campaign={campaign} /> },
  { field: 'next', labelKey: 'campaigns.nextAction', type: 'text', sortable: false, filterable: false, render: (campaign) => (isFinished(campaign.status) ? '—' : <CampaignControls campaign={campaign} only="next" size="xs" />) },
];

/** The tenant's campaigns: a plan calling a contact list from one of the tenant's numbers (issue 38). */
export default function CampaignsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [editing, setEditing] = useState<Campaign | 'new' | null>(null);
  const removeRow = useRemoveRow(CAMPAIGNS);
  return (
    <>
      <DataTable<Campaign>
        tableId="campaigns"
        resource={CAMPAIGNS}
        titleKey="nav.campaigns"
        columns={columns}
        searchFields={['name', 'plan_name', 'number']}
        defaultSort={{ field: 'created_time', direction: 'DESC' }}
        toolbar={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} data-testid="campaign-new">
            {t('campaigns.new')}
          </Button>
        }
        // One that is calling, or paused with calls to make, is cancelled rather than removed.
        canRemove={(campaign) => campaign.status === 'draft' || isFinished(campaign.status)}
        onRowOpen={(campaign) => void navigate(String(campaign.id))}
        rowActions={(campaign) => (
          <EditRemoveActions
            testIdPrefix="campaign"
            onEdit={() => setEditing(campaign)}
            onRemove={campaign.status === 'draft' || isFinished(campaign.status) ? () => removeRow(campaign.id) : undefined}
          />
        )}
      />
      {editing !== null && (
        <CampaignFormModal
          key={editing === 'new' ? 'new' : editing.id}
          campaign={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          // A new campaign has no contacts yet: its page is where they are uploaded.
          onCreated={(campaign) => void navigate(String(campaign.id))}
        />
      )}
    </>
  );
}
