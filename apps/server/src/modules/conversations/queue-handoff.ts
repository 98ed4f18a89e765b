/**
 * Routing a chat to a queue and back to its plan (docs/conversations.md): a chat that reaches a queue
 * destination waits for one of the queue's agents, or takes the block's exit at once when none is
 * online; the session stays parked at its destination block meanwhile. Every state change is a
 * conditional UPDATE, so that instances racing each other (two agents taking one chat, the no-answer
 * sweep and a take) agree on one winner.
 */
import type { DialStatus, EngineEvent, Session } from '@voxplan/engine';
import type { Insertable } from 'kysely';
import type { ConversationTable } from '../../db/schema.ts';
import { nowIso } from '../../lib/time.ts';
import type { DialAction } from '../sessions/chat-handoff.ts';
import { type ConversationContext, type ConversationRecord } from './conversation-records.ts';
import { publishRow } from './queue-place.ts';
import { agentsOnline } from './presence.ts';

export interface QueueHandOffRequest {
  session: Session;
  dial: DialAction;
  /** The revision of the stored turn that reached the block: the plan resumes as `handoff:<revision>`. */
  revision: number;
}

/**
 * A chat reached a queue destination. No agent of the queue online: the block's exit is `busy` at
 * once. Otherwise the chat waits in the queue (a `waiting` conversation) until an agent takes it or
 * the block's `timeout_s` passes (`no_answer`, by the sweep), and the session is parked: it has no
 * idle timeout while a person may hold it. Answers the exit to take now, or null when parked.
 */
export async function openQueueConversation(ctx: ConversationContext, request: QueueHandOffRequest): Promise<DialStatus | null> {
  const { session, dial } = request;
  const online = await agentsOnline(ctx.db, session.tenant_id, [dial.destination_id]);
  const now = new Date();
  const values = handOffValues(request, now.toISOString());
  if ((online.get(dial.destination_id) ?? 0) === 0) {
    // Kept, closed, so that the report and the dashboard count the chat nobody could take.
    const busy = await ctx.db
      .insertInto('conversations')
      .values({ ...values, status: 'closed', outcome: 'busy', closed_at: values.created_at })
      .returningAll()
      .executeTakeFirstOrThrow();
    await publishRow(ctx, busy, 'conversation.closed');
    return 'busy';
  }
  const deadline = new Date(now.getTime() + dial.timeout_s * 1000).toISOString();
  await parkSession(ctx, session.id, { ...values, status: 'waiting', deadline_at: deadline });
  return null;
}

/** What a conversation of a hand-off keeps of its session, its destination and the turn that reached the block. */
export function handOffValues(request: Pick<QueueHandOffRequest, 'session' | 'dial' | 'revision'>, now: string) {
  const { session, dial } = request;
  return {
    tenant_id: session.tenant_id,
    session_id: session.id,
    destination_id: dial.destination_id,
    channel: session.channel,
    provider: session.provider,
    caller: session.caller,
    protocol: session.protocol ?? '',
    created_at: now,
    handoff_revision: request.revision,
  };
}

/**
 * Stores the conversation that holds a chat now and parks the session: the sweeper does not end a
 * chat a person holds (docs/conversations.md). Tells every instance.
 */
export async function parkSession(ctx: ConversationContext, sessionId: string, values: Insertable<ConversationTable>): Promise<void> {
  const record = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('conversations').values(values).returningAll().executeTakeFirstOrThrow();
    await trx.updateTable('sessions').set({ timeout_time: null }).where('id', '=', sessionId).where('status', '=', 'waiting').execute();
    return inserted;
  });
  await publishRow(ctx, record, record.status === 'waiting' ? 'conversation.waiting' : 'conversation.taken');
}

/** The plan takes the chat back: the destination block's exit, run as the hand-off's turn, its replies sent to the customer. */
async function resumePlan(ctx: ConversationContext, record: ConversationRecord, event: EngineEvent, eventId = `handoff:${record.handoff_revision}`): Promise<void> {
  await ctx.sessions.resumeParked(record.session_id, eventId, event);
}

/**
 * Waiting conversations past their deadline: closed `no_answer`, the plan resumed through the
 * block's `no_answer` exit. Safe beside other instances' sweeps: the close is conditional, and the
 * resume's event id is the hand-off's. Answers the ids it closed.
 */
export async function sweepUnanswered(ctx: ConversationContext, now = new Date(), batch = 200): Promise<number[]> {
  const due = await ctx.db
    .selectFrom('conversations')
    .select('id')
    .where('status', '=', 'waiting')
    .where('deadline_at', '<=', now.toISOString())
    .orderBy('deadline_at')
    .limit(batch)
    .execute();
  const closed: number[] = [];
  for (const { id } of due) {
    const updated = await ctx.db
      .updateTable('conversations')
      .set({ status: 'closed', outcome: 'no_answer', closed_at: now.toISOString(), deadline_at: null })
      .where('id', '=', id)
      .where('status', '=', 'waiting')
      .where('deadline_at', '<=', now.toISOString())
      .returningAll()
      .executeTakeFirst();
    if (!updated) continue;
    closed.push(id);
    await publishRow(ctx, updated, 'conversation.closed');
    await resumePlan(ctx, updated, { type: 'dial_result', status: 'no_answer' });
  }
  return closed;
}

/** The close itself, conditional on the conversation being as it was read; answers null when it moved meanwhile. Shared with the outside desk. */
export async function closeRecord(ctx: ConversationContext, found: ConversationRecord, outcome: 'resolved' | 'back_to_plan'): Promise<ConversationRecord | null> {
  const closed = await ctx.db
    .updateTable('conversations')
    .set({ status: 'closed', outcome, closed_at: nowIso(), deadline_at: null })
    .where('id', '=', found.id)
    .where('status', '=', found.status)
    .where((eb) => (found.agent_id === null ? eb('agent_id', 'is', null) : eb('agent_id', '=', found.agent_id)))
    .returningAll()
    .executeTakeFirst();
  if (!closed) return null;
  await publishRow(ctx, closed, 'conversation.closed');
  if (outcome === 'back_to_plan') await resumePlan(ctx, closed, { type: 'dial_result', status: 'answer' });
  else await resumePlan(ctx, closed, { type: 'dial_result', status: 'answer', resolved: true }, `conversation:${closed.id}:resolved`);
  return closed;
}

/**
 * The chat ended while waiting in a queue (the customer left, or the chat timed out): its
 * conversation closes `abandoned`, so that no agent takes a chat nobody is on.
 */
export async function closeLeftConversation(ctx: ConversationContext, sessionId: string): Promise<void> {
  const closed = await ctx.db
    .updateTable('conversations')
    .set({ status: 'closed', outcome: 'abandoned', closed_at: nowIso(), deadline_at: null })
    .where('session_id', '=', sessionId)
    .where('status', '=', 'waiting')
    .returningAll()
    .executeTakeFirst();
  if (closed) await publishRow(ctx, closed, 'conversation.closed');
}

