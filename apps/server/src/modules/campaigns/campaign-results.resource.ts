import { type CampaignInvalidRow, campaignInvalidRowSchema, type CampaignResult, campaignResultSchema } from '@voxplan/contracts';
import { z } from 'zod';
import { defineResource, memberKeptTenantRecords, type Row } from '../../resources/definition.ts';
import { whatsappMessagesOf } from '../reports/whatsapp-messages.ts';

/**
 * A campaign's contacts as its results, and the rows of its lists that were not imported: read
 * only, through the generic layer's filters and tenant scope, under /campaigns/{id}/... (the routes
 * add the campaign to every where clause). Not in the registry: they have no path of their own.
 */

const noInput = z.object({}).strict();

export const campaignResultsResource = defineResource({
  // Read only: nothing is audited under it; the campaign is what its rows belong to.
  entity: 'campaign',
  path: '/campaigns/{id}/results',
  table: 'campaign_contacts',
  ...memberKeptTenantRecords,
  readOnly: true,
  fields: {
    id: 'integer',
    tenant_id: 'integer',
    campaign_id: 'integer',
    line: 'integer',
    phone: 'string',
    name: 'string',
    time_zone: 'string',
    state: 'string',
    last_outcome: 'string',
    attempts: 'integer',
    last_session_id: 'string',
    last_attempt_time: 'date',
    next_attempt_time: 'date',
  },
  // One direction ending with id: the CSV export reads every page by keyset.
  defaultOrder: [{ field: 'id', direction: 'asc' }],
  output: campaignResultSchema,
  updateInput: noInput,
  // The opening messages' statuses change as Meta reports them.
  readTables: ['whatsapp_messages'],
  async present(rows: Row[], db): Promise<CampaignResult[]> {
    // A contact's message is its conversation's opening one: the first its session sent.
    const messages = await whatsappMessagesOf(db, rows.map((row) => row.last_session_id as string | null).filter((id): id is string => id !== null));
    const openingOf = (row: Row) => messages.get(row.last_session_id as string)?.[0];
    return rows.map((row) => ({
      id: row.id,
      campaign_id: row.campaign_id as number,
      line: row.line as number,
      phone: row.phone as string,
      name: row.name as string,
      time_zone: row.time_zone as string | null,
      variables: JSON.parse(row.variables as string) as Record<string, string>,
      state: row.state as CampaignResult['state'],
      last_outcome: row.last_outcome as CampaignResult['last_outcome'],
      attempts: row.attempts as number,
      last_session_id: row.last_session_id as string | null,
      last_attempt_time: row.last_attempt_time as string | null,
      next_attempt_time: row.state === 'pending' ? (row.next_attempt_time as string | null) : null,
      message_status: openingOf(row)?.status ?? null,
      message_error: openingOf(row)?.error ?? null,
    }));
  },
});

export const campaignInvalidRowsResource = defineResource({
  entity: 'campaign',
  path: '/campaigns/{id}/invalid-rows',
  table: 'campaign_invalid_rows',
  ...memberKeptTenantRecords,
  readOnly: true,
  fields: { id: 'integer', tenant_id: 'integer', campaign_id: 'integer', line: 'integer', reason: 'string', value: 'string', import_token: 'string', created_time: 'date' },
  defaultOrder: [{ field: 'line', direction: 'asc' }, { field: 'id', direction: 'asc' }],
  output: campaignInvalidRowSchema,
  updateInput: noInput,
  present: (rows: Row[]): CampaignInvalidRow[] =>
    rows.map((row) => ({
      id: row.id,
      campaign_id: row.campaign_id as number,
      line: row.line as number,
      reason: row.reason as CampaignInvalidRow['reason'],
      value: row.value as string,
      created_time: row.created_time as string,
    })),
});
