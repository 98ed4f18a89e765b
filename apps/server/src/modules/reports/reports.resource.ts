import { type CallReportCalledPlan, type CallReportRecord, callReportSchema } from '@voxplan/contracts';
import { type Selectable, sql } from 'kysely';
import { z } from 'zod';
import type { CallReportTable } from '../../db/schema.ts';
import { defineResource, type Row } from '../../resources/definition.ts';
import { handOffsOfSessions } from '../conversations/conversations.service.ts';
import { mediaOf } from '../conversations/conversation-records.ts';
import { customersOfSessions } from '../sessions/sessions.repository.ts';
import { presentReport } from '../sessions/call-reports.repository.ts';
import { MEDIA_URL_TTL_SECONDS } from '../audios/media-urls.ts';
import { calledPlansOf } from './called-plans.ts';
import { whatsappMessagesOf } from './whatsapp-messages.ts';

/** The plans called, in the order the session entered them: by the first block of each in its path. */
function inPathOrder(plans: CallReportCalledPlan[], path: CallReportRecord['nodes']): CallReportCalledPlan[] {
  const first = (planId: number) => {
    const index = path.findIndex((entry) => entry.plan_id === planId);
    return index < 0 ? path.length : index;
  };
  return plans.sort((a, b) => first(a.plan_id) - first(b.plan_id));
}

/** A column of the report's last hand-off (its session's newest conversation); null for a call or a chat never handed. */
function lastHandOff(column: 'agent_id' | 'destination_id') {
  return sql<number | null>`(select c.${sql.ref(column)} from conversations c where c.session_id = call_reports.session_id order by c.id desc limit 1)`;
}

/**
 * Call reports (spec section 3): written by the turn runner when a session ends, read here.
 * Reports of test sessions (the simulator) are left out of lists and counts unless the where
 * clause names `is_test`.
 */
export const reportsResource = defineResource({
  entity: 'report',
  path: '/reports',
  table: 'call_reports',
  tenantOwned: true,
  readOnly: true,
  read: 'member',
  write: 'admin',
  fields: {
    id: 'integer',
    tenant_id: 'integer',
    session_id: 'string',
    plan_id: 'integer',
    plan_name: 'string',
    plan_version: 'integer',
    channel: 'string',
    provider: 'string',
    direction: 'string',
    caller: 'string',
    called: 'string',
    source_ip: 'string',
    protocol: 'string',
    last_node_plan_id: 'integer',
    last_node_id: 'string',
    last_node_type: 'string',
    hangup_cause: 'string',
    disposition: 'string',
    dial_status: 'string',
    // The first goal the session reached (docs/rollouts.md, "Goals").
    goal: 'string',
    // The campaign that placed the call (docs/outbound.md); null for every other.
    campaign_id: 'integer',
    is_test: 'boolean',
    start_time: 'date',
    end_time: 'date',
    duration_s: 'integer',
    created_time: 'date',
    updated_time: 'date',
  },
  // A chat's agent and queue are its hand-off's: the last one's when it was handed more than once
  // (the person who ended up with it, as the table's columns show).
  derivedFields: {
    agent_id: { type: 'integer', sql: lastHandOff('agent_id') },
    queue_id: { type: 'integer', sql: lastHandOff('destination_id') },
  },
  defaultOrder: [
    { field: 'start_time', direction: 'desc' },
    { field: 'id', direction: 'desc' },
  ],
  defaultWhere: { is_test: false },
  output: callReportSchema,
  createInput: z.never(),
  updateInput: z.never(),
  async present(rows: Row[], db, app) {
    const chats = rows.filter((row) => row.channel === 'chat').map((row) => row.session_id as string);
    const handOffs = await handOffsOfSessions(db, mediaOf(app), chats);
    const customers = await customersOfSessions(db, chats);
    const whatsapp = await whatsappMessagesOf(db, rows.filter((row) => row.provider === 'whatsapp').map((row) => row.session_id as string));
    // Test sessions keep none (docs/rollouts.md): not asked for theirs.
    const called = await calledPlansOf(db, rows.filter((row) => row.is_test !== 1).map((row) => row.id));
    return rows.map((row) => {
      const report = presentReport(row as unknown as Selectable<CallReportTable>);
      const handoffs = handOffs.get(row.session_id as string);
      const customer = customers.get(row.session_id as string);
      const messages = whatsapp.get(row.session_id as string);
      const calledPlans = called.get(row.id) && inPathOrder(called.get(row.id)!, report.nodes);
      return {
        ...report,
        ...(calledPlans && { called_plans: calledPlans }),
        ...(handoffs && { handoffs }),
        ...(customer && { customer }),
        ...(messages && { whatsapp_messages: messages }),
      };
    });
  },
  // A hand-off's conversation may change after the report is written (an agent closes it later).
  // Not `sessions`: the customer is written with the session's start, before any report of it.
  // Meta's delivery statuses arrive after the report is written.
  // The plans a report's session called are written with it, and replaced when it is stored again.
  readTables: ['conversations', 'conversation_messages', 'whatsapp_messages', 'call_report_plans'],
  // A hand-off's files are signed links (media-urls.ts).
  presentedFor: MEDIA_URL_TTL_SECONDS,
});
