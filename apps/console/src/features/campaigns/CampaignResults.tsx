import { Badge, Button } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { type Campaign, type CampaignResult, campaignContactStates, campaignOutcomes } from '@voxplan/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadAttachment } from '../../lib/api/download.ts';
import { showError } from '../../lib/errors.ts';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { outcomeColor } from './CampaignProgressView.tsx';
import { CAMPAIGNS } from './status.ts';

const stateOptions = campaignContactStates.map((value) => ({ value, labelKey: `campaigns.contactStates.${value}` }));
const outcomeOptions = campaignOutcomes.map((value) => ({ value, labelKey: `campaigns.results.${value}` }));

function OutcomeBadge({ outcome }: { outcome: CampaignResult['last_outcome'] }) {
  const { t } = useTranslation();
  if (!outcome) return '—';
  return (
    <Badge variant="light" color={outcomeColor[outcome] ?? 'gray'} data-value={outcome}>
      {t(`campaigns.results.${outcome}`)}
    </Badge>
  );
}

const messageColor: Record<NonNullable<CampaignResult['message_status']>, string> = { accepted: 'gray', sent: 'blue', delivered: 'teal', read: 'green', failed: 'red' };

/** A WhatsApp contact's opening message as Meta last reported it; a failure with Meta's code and words. */
function MessageBadge({ row }: { row: CampaignResult }) {
  const { t } = useTranslation();
  if (!row.message_status) return '—';
  return (
    // Never cut short: the status and Meta's code are the point of the column.
    <Badge variant="light" color={messageColor[row.message_status]} miw="max-content" data-value={row.message_status} title={row.message_error ?? undefined} data-testid="campaign-message-status">
      {t(`campaigns.messageStatuses.${row.message_status}`)}
      {row.message_error ? ` · ${row.message_error.split(' ')[0]}` : ''}
    </Badge>
  );
}

const columns: Column<CampaignResult>[] = [
  // The API filters results on state, last outcome, phone and name (docs/campaigns.md).
  { field: 'line', labelKey: 'campaigns.contacts.line', type: 'number', filterable: false },
  { field: 'phone', labelKey: 'campaigns.contacts.roles.phone', type: 'text' },
  { field: 'name', labelKey: 'campaigns.contacts.roles.name', type: 'text' },
  { field: 'state', labelKey: 'campaigns.contactState', type: 'enum', options: stateOptions },
  { field: 'last_outcome', labelKey: 'campaigns.lastOutcome', type: 'enum', options: outcomeOptions, render: (row) => <OutcomeBadge outcome={row.last_outcome} /> },
  // WhatsApp: the opening message's delivery status, read from Meta's reports (not a stored column: neither sorted nor filtered).
  { field: 'message_status', labelKey: 'campaigns.messageStatus', type: 'text', sortable: false, filterable: false, render: (row) => <MessageBadge row={row} /> },
  { field: 'attempts', labelKey: 'campaigns.attempts', type: 'number', filterable: false },
  { field: 'last_attempt_time', labelKey: 'campaigns.lastAttempt', type: 'date', filterable: false },
  { field: 'next_attempt_time', labelKey: 'campaigns.nextAttempt', type: 'date', filterable: false },
];

/** A call campaign's results have no message. */
const callColumns = columns.filter((column) => column.field !== 'message_status');

/** The results as a CSV file, one row per contact, as the server writes it. */
function ExportResultsButton({ campaign }: { campaign: Campaign }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await downloadAttachment(`${CAMPAIGNS}/${campaign.id}/results/export`, `campaign-${campaign.id}-results.csv`);
    } catch (error) {
      showError(error, t);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="default" leftSection={<IconFileSpreadsheet size={16} />} loading={busy} onClick={() => void run()} data-testid="campaign-results-export">
      {t('campaigns.exportResults')}
    </Button>
  );
}

/**
 * One row per contact: its line, number, state, last outcome and attempts, and on WhatsApp
 * (`messages`) its opening message's delivery status. The table is asked
 * again whenever the campaign's figures move (`done`, `attempts`), so that rows
 * follow the progress without a reload.
 */
export function CampaignResults({ campaign, done, attempts, messages }: { campaign: Campaign; done: number; attempts: number; messages: boolean }) {
  const queryClient = useQueryClient();
  const resource = `${CAMPAIGNS}/${campaign.id}/results`;
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: [resource] });
  }, [queryClient, resource, done, attempts]);
  return (
    <DataTable<CampaignResult>
      tableId="campaign-results"
      resource={resource}
      titleKey="campaigns.resultsTitle"
      columns={messages ? columns : callColumns}
      searchFields={['phone', 'name']}
      defaultSort={{ field: 'line', direction: 'ASC' }}
      viewActions={() => <ExportResultsButton campaign={campaign} />}
    />
  );
}
