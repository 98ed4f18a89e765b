/**
 * Conversations (issue 30, docs/conversations.md): a chat that reaches a queue destination waits
 * for one of the queue's agents; the agent who takes it talks with the customer until they close
 * it, back to the plan (the destination block's `answer` exit) or resolved (the chat ends). The
 * session stays parked at its destination block meanwhile; every state change is a conditional
 * UPDATE, so that instances racing each other (two agents taking one chat, the no-answer sweep
 * and a take) agree on one winner.
 */
import {
  type Agent,
  type AgentStatus,
  type CallReportRecord,
  type ChatCustomer,
  type ConversationDetail,
  type ConversationEvent,
  type ConversationMessage,
  type ConversationRow,
  type ConversationSummary,
  conversationLimits,
} from '@voxplan/contracts';
import type { DialStatus, EngineEvent, Session } from '@voxplan/engine';
import { type Insertable, type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { AppContext, Scope } from '../../context.ts';
import type { ConversationMessageTable, ConversationTable, Database } from '../../db/schema.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { assertAllowed, tenantFilterOf } from '../../plugins/auth.ts';
import { transferDeadline } from './transfer-deadline.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import type { DialAction } from '../sessions/chat-handoff.ts';
import { parseSession } from '../sessions/sessions.repository.ts';
import { createMediaUrls, type MediaUrls } from '../audios/media-urls.ts';
import { servesTenant } from './agents.ts';
import { attachmentView, type StoredAttachment } from './attachment-store.ts';
import { closingMessageFor } from './closing-message.ts';
import { assertInCustomerWindow, hasCustomerWindow, windowClosesAt } from './customer-window.ts';
import { publishConversationEvent } from './conversation-events.ts';
import { tellQueuePlaces } from './queue-place.ts';

/** What the conversations need of the app: everything but the licence (the runtime resumes parked chats). */
export type ConversationContext = Pick<AppContext, 'db' | 'dialect' | 'bus' | 'sessions' | 'keys' | 'config' | 'outbound' | 'channels'>;

/**
 * An agent shown online whose console has said nothing for this long is taken as gone (a server
 * that stopped without closing its streams): a stream refreshes its agent's presence far more often.
 */
export const PRESENCE_STALE_MS = 90_000;

export type ConversationRecord = Selectable<ConversationTable>;

const rowColumns = [
  'c.id',
  'c.tenant_id',
  'c.session_id',
  'c.destination_id',
  'c.agent_id',
  'c.status',
  'c.outcome',
  'c.channel',
  'c.provider',
  'c.caller',
  'c.protocol',
  'c.created_at',
  'c.taken_at',
  'c.closed_at',
  'c.last_message_at',
  'c.unread_for_agent',
  'c.handoff_revision',
  'c.reply_token_hash',
  'c.deadline_at',
  'c.transfer_deadline_at',
  'c.transferred_from',
  'c.customer_seen_at',
] as const;

function selectRows(db: Kysely<Database>) {
  return db
    .selectFrom('conversations as c')
    .leftJoin('destinations as d', 'd.id', 'c.destination_id')
    .leftJoin('users as u', 'u.id', 'c.agent_id')
    // Who the customer is stays with the session, which the channel started knowing it.
    .leftJoin('sessions as s', 's.id', 'c.session_id')
    .select([...rowColumns, 'd.name as queue_name', 'u.name as agent_name', 's.customer as customer']);
}

type JoinedRow = ConversationRecord & { queue_name: string | null; agent_name: string | null; customer: string | null };

/** The rows as the list shows them, with each one's last message, in one more query. */
async function presentRows(db: Kysely<Database>, rows: readonly JoinedRow[]): Promise<ConversationRow[]> {
  const ids = rows.map((row) => row.id);
  const last = new Map<number, ConversationRow['last_message']>();
  if (ids.length > 0) {
    const latest = await db
      .selectFrom('conversation_messages')
      .select(['conversation_id', 'author', 'text', 'created_at'])
      // The queue's own lines (queue-place.ts) would hide what the customer last said.
      .where('id', 'in', db.selectFrom('conversation_messages').select((eb) => eb.fn.max('id').as('id')).where('conversation_id', 'in', ids).where('author', '<>', 'bot').groupBy('conversation_id'))
      .execute();
    for (const message of latest) last.set(message.conversation_id, { author: message.author, text: message.text, created_at: message.created_at });
  }
  return rows.map((row) => ({
    id: row.id,
    session_id: row.session_id,
    status: row.status,
    queue: row.destination_id !== null && row.queue_name !== null ? { id: row.destination_id, name: row.queue_name } : null,
    agent: row.agent_id !== null && row.agent_name !== null ? { id: row.agent_id, name: row.agent_name } : null,
    channel: row.channel,
    provider: row.provider,
    caller: row.caller,
    customer: row.customer === null ? null : (JSON.parse(row.customer) as ChatCustomer),
    protocol: row.protocol,
    waiting_since: row.created_at,
    taken_at: row.taken_at,
    closed_at: row.closed_at,
    outcome: row.outcome,
    last_message: last.get(row.id) ?? null,
    unread: row.unread_for_agent,
  }));
}

async function rowOf(db: Kysely<Database>, id: number): Promise<ConversationRow> {
  const row = await selectRows(db).where('c.id', '=', id).executeTakeFirstOrThrow();
  return (await presentRows(db, [row]))[0]!;
}

/** Signs the URLs of the conversations' files (each message read signs afresh). */
export const mediaOf = (ctx: Pick<ConversationContext, 'keys' | 'config'>): MediaUrls => createMediaUrls(ctx.keys.mediaKey, ctx.config.publicUrl);

function presentMessage(media: MediaUrls, message: Selectable<ConversationMessageTable>, agentName: string | null): ConversationMessage {
  return {
    id: message.id,
    conversation_id: message.conversation_id,
    author: message.author,
    agent: message.agent_id !== null ? { id: message.agent_id, name: agentName ?? '' } : null,
    text: message.text,
    attachment: attachmentView(media, message.attachment),
    template: message.template === null ? null : (JSON.parse(message.template) as ConversationMessage['template']),
    created_at: message.created_at,
  };
}

/** Tells the consoles (and the web chat's polls) of every instance. */
export function publish(ctx: ConversationContext, record: Pick<ConversationRecord, 'tenant_id' | 'session_id'>, event: ConversationEvent): void {
  publishConversationEvent(ctx.bus, { tenant_id: record.tenant_id, session_id: record.session_id, event });
}

export async function publishRow(ctx: ConversationContext, record: ConversationRecord, type: 'conversation.waiting' | 'conversation.taken' | 'conversation.closed' | 'conversation.transferred'): Promise<ConversationRow> {
  const row = await rowOf(ctx.db, record.id);
  publish(ctx, record, { type, conversation_id: record.id, conversation: row });
  // Every change of a queue's waiting chats passes here: those still waiting hear their new place.
  await tellQueuePlaces(ctx, record.destination_id);
  return row;
}

/** The conversation `id` the scope may see; another tenant's is not found. */
export async function findConversation(ctx: ConversationContext, scope: Scope, id: number): Promise<ConversationRecord> {
  const tenantId = tenantFilterOf(scope);
  let query = ctx.db.selectFrom('conversations').selectAll().where('id', '=', id);
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  const found = await query.executeTakeFirst();
  if (!found) throw notFound('conversation_not_found');
  return found;
}

const byId = (ctx: ConversationContext, id: number) => ctx.db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Agents of the queue who are online now (not away, their console open). */
export async function agentsOnline(db: Kysely<Database>, tenantId: number, destinationIds: readonly number[], now = Date.now()): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (destinationIds.length === 0) return counts;
  const rows = await db
    .selectFrom('destination_agents as a')
    .innerJoin('agent_presence as p', (join) => join.onRef('p.user_id', '=', 'a.user_id').on('p.tenant_id', '=', tenantId))
    .select(['a.destination_id', (eb) => eb.fn.countAll<string | number>().as('count')])
    .where('a.destination_id', 'in', destinationIds)
    .where('p.status', '=', 'online')
    .where('p.updated_at', '>=', new Date(now - PRESENCE_STALE_MS).toISOString())
    .groupBy('a.destination_id')
    .execute();
  for (const row of rows) counts.set(row.destination_id, Number(row.count));
  return counts;
}

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

function assertWriter(scope: Scope): void {
  assertAllowed(scope.actor, 'member', true);
}

/** Whether `userId` may hold chats of `tenantId`: a user of it, or an administrator. */
async function assertAgentOfTenant(db: Kysely<Database>, tenantId: number, userId: number): Promise<void> {
  const role = await db
    .selectFrom('user_roles')
    .select('user_id')
    .where('user_id', '=', userId)
    .where(servesTenant(tenantId))
    .executeTakeFirst();
  if (!role) throw badRequest('agent_not_in_tenant', [{ path: 'agent_id', message: `user ${userId} is not a user of this tenant` }]);
}

async function audit(ctx: ConversationContext, scope: Scope, record: ConversationRecord, before: ConversationRow | null, after: ConversationRow, event: string): Promise<void> {
  const snapshot = (row: ConversationRow | null) => row && { event, status: row.status, queue: row.queue?.name ?? null, agent: row.agent?.name ?? null, outcome: row.outcome, caller: row.caller, protocol: row.protocol };
  await recordAudit(ctx.db, scope, [{ action: 'update', entity: 'conversation', entityId: record.id, tenantId: record.tenant_id, before: snapshot(before), after: snapshot(after) }]);
}

/**
 * Takes a waiting conversation for the caller: one conditional UPDATE, so that of two agents
 * taking at once one wins and the other is told `conversation_taken`. Taking one's own again is
 * a no-op.
 */
export async function takeConversation(ctx: ConversationContext, scope: Scope, id: number): Promise<ConversationRow> {
  assertWriter(scope);
  const found = await findConversation(ctx, scope, id);
  const before = await rowOf(ctx.db, id);
  const now = nowIso();
  const taken = await ctx.db
    .updateTable('conversations')
    // Taking a transferred chat accepts the transfer.
    .set({ status: 'open', agent_id: scope.actor.userId, taken_at: now, deadline_at: null, transfer_deadline_at: null })
    .where('id', '=', id)
    .where('status', '=', 'waiting')
    .returningAll()
    .executeTakeFirst();
  if (!taken) {
    const current = await byId(ctx, id);
    if (current.status === 'closed') throw conflict('conversation_closed');
    if (current.agent_id === scope.actor.userId) return rowOf(ctx.db, id);
    throw conflict('conversation_taken');
  }
  const row = await publishRow(ctx, taken, 'conversation.taken');
  await audit(ctx, scope, found, before, row, 'take');
  return row;
}

/** The open conversation `id`, if the caller (a writer) holds it. */
export async function heldConversation(ctx: ConversationContext, scope: Scope, id: number): Promise<ConversationRecord> {
  assertWriter(scope);
  return heldBy(ctx, scope, id);
}

/** The open conversation `id`, if the caller holds it. */
async function heldBy(ctx: ConversationContext, scope: Scope, id: number): Promise<ConversationRecord> {
  const found = await findConversation(ctx, scope, id);
  if (found.status === 'closed') throw conflict('conversation_closed');
  if (found.status !== 'open' || found.agent_id !== scope.actor.userId) throw conflict('conversation_not_yours');
  return found;
}

export async function userName(db: Kysely<Database>, userId: number): Promise<string> {
  return (await db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst())?.name ?? '';
}

/** Stores a message of the conversation and tells every instance; the customer's count as unread for the agent. */
export async function addMessage(
  ctx: ConversationContext,
  // The provider and caller, where given, tell with a customer's message when the window it opened closes.
  record: Pick<ConversationRecord, 'id' | 'tenant_id' | 'session_id'> & Partial<Pick<ConversationRecord, 'provider' | 'caller'>>,
  message: {
    author: ConversationMessage['author'];
    agent_id?: number | null;
    text: string;
    attachment?: StoredAttachment | null;
    external_id?: string;
    template?: ConversationMessage['template'];
  },
): Promise<ConversationMessage | null> {
  const now = nowIso();
  const stored = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('conversation_messages')
      .values({
        conversation_id: record.id,
        author: message.author,
        agent_id: message.agent_id ?? null,
        text: message.text.slice(0, conversationLimits.text),
        attachment: message.attachment ? JSON.stringify(message.attachment) : null,
        external_id: message.external_id ?? null,
        template: message.template ? JSON.stringify(message.template) : null,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['conversation_id', 'external_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
    // The channel delivered this message before: it is stored already.
    if (!inserted) return undefined;
    await trx
      .updateTable('conversations')
      // An agent's message accepts a transfer to them (transfer-deadline.ts).
      .set((eb) => ({ last_message_at: now, ...(message.author === 'customer' && { unread_for_agent: eb('unread_for_agent', '+', 1) }), ...(message.author === 'agent' && { transfer_deadline_at: null }) }))
      .where('id', '=', record.id)
      .execute();
    return inserted;
  });
  if (!stored) return null;
  const presented = presentMessage(mediaOf(ctx), stored, message.agent_id ? await userName(ctx.db, message.agent_id) : null);
  const { provider, caller } = record;
  const reopened =
    message.author === 'customer' && provider !== undefined && caller !== undefined && hasCustomerWindow(ctx, provider)
      ? await windowClosesAt(ctx, { tenant_id: record.tenant_id, session_id: record.session_id, provider, caller })
      : null;
  publish(ctx, record, { type: 'conversation.message', conversation_id: record.id, message: presented, ...(reopened !== null && { window_closes_at: reopened }) });
  return presented;
}

/** The agent's message: stored, told to the consoles, and sent to the customer on the chat's channel. */
export async function postAgentMessage(
  ctx: ConversationContext,
  scope: Scope,
  id: number,
  body: { text: string; attachment?: StoredAttachment | undefined },
  deliver: (record: ConversationRecord, message: ConversationMessage) => Promise<void>,
): Promise<ConversationMessage> {
  assertWriter(scope);
  const record = await heldBy(ctx, scope, id);
  // Past the customer service window the channel would refuse it: refused here, nothing stored.
  await assertInCustomerWindow(ctx, record);
  // Without an external id a message is never a duplicate.
  const message = (await addMessage(ctx, record, { author: 'agent', agent_id: scope.actor.userId, text: body.text, attachment: body.attachment ?? null }))!;
  await deliver(record, message);
  return message;
}

/** The agent types: the customer's widget shows it for a moment (no record kept). */
export async function agentTyping(ctx: ConversationContext, scope: Scope, id: number): Promise<void> {
  assertWriter(scope);
  const record = await heldBy(ctx, scope, id);
  publish(ctx, record, { type: 'conversation.typing', conversation_id: id, agent: { id: scope.actor.userId, name: await userName(ctx.db, scope.actor.userId) } });
}

/**
 * Hands the conversation to another queue (it waits there) or to an agent of the tenant (it is
 * theirs at once), either to be accepted within the transfer timeout (docs/conversations.md,
 * "Transfer deadline"). Only its agent, or an administrator, may; a waiting one may be moved by any agent.
 */
export async function transferConversation(ctx: ConversationContext, scope: Scope, id: number, target: { queue_id: number } | { agent_id: number }): Promise<ConversationRow> {
  assertWriter(scope);
  const found = await findConversation(ctx, scope, id);
  if (found.status === 'closed') throw conflict('conversation_closed');
  if (found.status === 'open' && found.agent_id !== scope.actor.userId && scope.actor.role !== 'admin') throw conflict('conversation_not_yours');
  const before = await rowOf(ctx.db, id);
  let changes: Partial<ConversationRecord>;
  let note: string;
  if ('queue_id' in target) {
    const queue = await ctx.db
      .selectFrom('destinations')
      .select(['id', 'name'])
      .where('id', '=', target.queue_id)
      .where('tenant_id', '=', found.tenant_id)
      .where('chat_target', '=', 'queue')
      .executeTakeFirst();
    if (!queue) throw badRequest('invalid_input', [{ path: 'queue_id', message: 'no chat queue of this tenant has this id' }]);
    changes = { status: 'waiting', destination_id: queue.id, agent_id: null, taken_at: null, deadline_at: null };
    note = queue.name;
  } else {
    await assertAgentOfTenant(ctx.db, found.tenant_id, target.agent_id);
    changes = { status: 'open', agent_id: target.agent_id, taken_at: nowIso(), deadline_at: null };
    note = await userName(ctx.db, target.agent_id);
  }
  // Not accepted in time (a take, the new agent's message), it goes back (transfer-deadline.ts).
  Object.assign(changes, await transferDeadline(ctx.db, found.agent_id));
  const moved = await ctx.db
    .updateTable('conversations')
    .set({ ...changes, unread_for_agent: 0 })
    .where('id', '=', id)
    .where('status', '=', found.status)
    .where((eb) => (found.agent_id === null ? eb('agent_id', 'is', null) : eb('agent_id', '=', found.agent_id)))
    .returningAll()
    .executeTakeFirst();
  // Someone else moved it first (a take, a close, another transfer).
  if (!moved) throw conflict('conversation_taken');
  await addMessage(ctx, moved, { author: 'system', text: `transferred: ${note}` });
  const row = await publishRow(ctx, moved, 'conversation.transferred');
  // The queue it left moves up too.
  if (found.destination_id !== moved.destination_id) await tellQueuePlaces(ctx, found.destination_id);
  await audit(ctx, scope, found, before, row, 'transfer');
  return row;
}

/**
 * Closes the caller's conversation. `back_to_plan`: the plan goes on from the destination block's
 * `answer` exit; `resolved`: the chat ends (as if the customer had closed it: disposition of a
 * hang-up at that block).
 */
export async function closeConversation(
  ctx: ConversationContext,
  scope: Scope,
  id: number,
  outcome: 'resolved' | 'back_to_plan',
  deliver?: (record: ConversationRecord, message: ConversationMessage) => Promise<void>,
): Promise<ConversationRow> {
  assertWriter(scope);
  const found = await findConversation(ctx, scope, id);
  if (found.status === 'closed') throw conflict('conversation_closed');
  const isAdmin = scope.actor.role === 'admin';
  if (found.agent_id !== scope.actor.userId && !isAdmin) throw conflict('conversation_not_yours');
  const before = await rowOf(ctx.db, id);
  const closed = await closeRecord(ctx, found, outcome);
  if (!closed) throw conflict('conversation_taken');
  // A queue's chat resolved by a person: the customer is told it is over (closing-message.ts). Back
  // to the plan, the plan speaks next; an outside desk says its own goodbye.
  if (outcome === 'resolved' && found.reply_token_hash === null && deliver) {
    const text = await closingMessageFor(ctx.db, found.destination_id, found.session_id);
    const message = await addMessage(ctx, closed, { author: 'agent', agent_id: scope.actor.userId, text });
    if (message) await deliver(closed, message);
  }
  const row = await rowOf(ctx.db, id);
  await audit(ctx, scope, found, before, row, 'close');
  return row;
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

export async function markRead(ctx: ConversationContext, scope: Scope, id: number): Promise<void> {
  // It writes the agent's count: a guest is refused as on every write, though it would change nothing.
  assertWriter(scope);
  const found = await findConversation(ctx, scope, id);
  if (found.agent_id !== scope.actor.userId) return;
  await ctx.db.updateTable('conversations').set({ unread_for_agent: 0 }).where('id', '=', id).execute();
}

/** Queues the caller serves, or null: every queue (administrators, and guests who read all). */
async function queuesOf(ctx: ConversationContext, scope: Scope): Promise<number[] | null> {
  if (scope.actor.role !== 'user') return null;
  const rows = await ctx.db.selectFrom('destination_agents').select('destination_id').where('user_id', '=', scope.actor.userId).execute();
  return rows.map((row) => row.destination_id);
}

/** A field of the session's customer (JSON text, migration 0022); null when it has none. */
function customerField(dialect: AppContext['dialect'], field: 'name' | 'email'): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`(s.customer::json ->> ${sql.lit(field)})` : sql`json_extract(s.customer, ${sql.lit(`$.${field}`)})`;
}

/**
 * One page of conversations. waiting: those of the caller's queues, longest wait first; open: the
 * caller's own (a guest's or an administrator's view: all of the tenant's); closed: the latest
 * first, searched by caller, protocol, queue or agent name, the customer's name or e-mail and message text.
 */
export async function listConversations(
  ctx: ConversationContext,
  scope: Scope,
  query: { status: ConversationRecord['status']; q?: string | undefined; queue_id?: number | undefined; page: number },
): Promise<ConversationRow[]> {
  const tenantId = tenantFilterOf(scope);
  let select = selectRows(ctx.db).where('c.status', '=', query.status);
  if (tenantId !== undefined) select = select.where('c.tenant_id', '=', tenantId);
  if (query.queue_id !== undefined) select = select.where('c.destination_id', '=', query.queue_id);
  if (query.status === 'waiting') {
    const queues = await queuesOf(ctx, scope);
    if (queues !== null) select = queues.length === 0 ? select.where(sql<boolean>`1 = 0`) : select.where('c.destination_id', 'in', queues);
    select = select.orderBy('c.created_at', 'asc');
  } else if (query.status === 'open') {
    if (scope.actor.role === 'user') select = select.where('c.agent_id', '=', scope.actor.userId);
    select = select.orderBy('c.last_message_at', 'desc');
  } else {
    if (query.q) {
      const pattern = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      // Case ignored on both databases (PostgreSQL's like would not): "ana" finds Ana Souza.
      const likeOf = (value: RawBuilder<unknown>) => sql<boolean>`lower(${value}) like lower(${pattern}) escape '\\'`;
      const like = (column: string) => likeOf(sql`${sql.ref(column)}`);
      select = select.where((eb) =>
        eb.or([
          like('c.caller'),
          like('c.protocol'),
          like('d.name'),
          like('u.name'),
          // Who the customer is (their name and e-mail, as the channel told it), kept on the session as JSON.
          likeOf(customerField(ctx.dialect, 'name')),
          likeOf(customerField(ctx.dialect, 'email')),
          eb.exists(eb.selectFrom('conversation_messages as m').select('m.id').whereRef('m.conversation_id', '=', 'c.id').where(like('m.text'))),
        ]),
      );
    }
    select = select.orderBy('c.closed_at', 'desc');
  }
  const rows = await select
    .orderBy('c.id', 'asc')
    .limit(conversationLimits.pageSize)
    .offset((query.page - 1) * conversationLimits.pageSize)
    .execute();
  return presentRows(ctx.db, rows);
}

export async function conversationDetail(ctx: ConversationContext, scope: Scope, id: number): Promise<ConversationDetail> {
  const found = await findConversation(ctx, scope, id);
  const [row, messages, sessionRow, closesAt] = await Promise.all([
    rowOf(ctx.db, id),
    ctx.db
      .selectFrom('conversation_messages as m')
      .leftJoin('users as u', 'u.id', 'm.agent_id')
      .selectAll('m')
      .select('u.name as agent_name')
      .where('m.conversation_id', '=', id)
      .orderBy('m.id')
      .execute(),
    ctx.db.selectFrom('sessions').selectAll().where('id', '=', found.session_id).executeTakeFirst(),
    windowClosesAt(ctx, found),
  ]);
  const session = sessionRow ? parseSession(sessionRow) : null;
  const media = mediaOf(ctx);
  return {
    ...row,
    messages: messages.map((message) => presentMessage(media, message, message.agent_name)),
    bot_transcript: session?.transcript.map((entry) => ({ from: entry.from, text: entry.text, at: entry.at })) ?? [],
    variables: session?.variables ?? {},
    plan: session ? { id: session.plan_id, name: session.plan_name } : { id: 1, name: '' },
    window_closes_at: closesAt,
  };
}

/** The agent's presence in the scope's tenant: offline until they say otherwise (or their console's presence went stale). */
export async function presenceOf(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number): Promise<AgentStatus> {
  const row = await ctx.db.selectFrom('agent_presence').select(['status', 'updated_at']).where('user_id', '=', userId).where('tenant_id', '=', tenantId).executeTakeFirst();
  return statusOf(row?.status ?? null, row?.updated_at ?? null, Date.now());
}

/** A stored presence as it stands `now`: none is offline, and so is an online one gone stale. */
function statusOf(status: AgentStatus | null, updatedAt: string | null, now: number): AgentStatus {
  if (status === null || updatedAt === null) return 'offline';
  if (status === 'online' && updatedAt < new Date(now - PRESENCE_STALE_MS).toISOString()) return 'offline';
  return status;
}

/**
 * Everyone who may answer the tenant's chats (its users and the administrators), by name, with
 * their presence there: what a queue's agent picker and a transfer to a person offer, to every
 * user of the tenant (only administrators may list users).
 */
export async function listAgents(ctx: Pick<ConversationContext, 'db'>, tenantId: number): Promise<Agent[]> {
  const now = Date.now();
  const rows = await ctx.db
    .selectFrom('users as u')
    .leftJoin('agent_presence as p', (join) => join.onRef('p.user_id', '=', 'u.id').on('p.tenant_id', '=', tenantId))
    .select(['u.id', 'u.name', 'u.username', 'p.status', 'p.updated_at'])
    .where('u.id', 'in', (eb) => eb.selectFrom('user_roles').select('user_id').where(servesTenant(tenantId)))
    .orderBy('u.name')
    .orderBy('u.id')
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name || row.username, status: statusOf(row.status, row.updated_at, now) }));
}

/** Answers the stamp it wrote (`updated_at`). */
export async function setPresence(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number, status: AgentStatus): Promise<string> {
  const updated_at = nowIso();
  await ctx.db
    .insertInto('agent_presence')
    .values({ user_id: userId, tenant_id: tenantId, status, updated_at })
    .onConflict((oc) => oc.columns(['user_id', 'tenant_id']).doUpdateSet({ status, updated_at }))
    .execute();
  return updated_at;
}

/**
 * How long a console whose stream ended with its token's expiry has to open it again (it does so
 * at once, with a refreshed token) before its agent is taken as gone.
 */
export const PRESENCE_RECONNECT_GRACE_MS = 15_000;

/**
 * An online agent whose console's stream ended with its token, `stamp` the last presence that
 * stream wrote: offline now, unless a console of theirs said something since (a stream opened or
 * pinged, on any instance, wrote another stamp). Stamps are compared, not clocks, so instances
 * whose clocks differ do not decide it.
 */
export async function offlineUnlessBack(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number, stamp: string): Promise<void> {
  await ctx.db
    .updateTable('agent_presence')
    .set({ status: 'offline', updated_at: nowIso() })
    .where('user_id', '=', userId)
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'online')
    .where('updated_at', '=', stamp)
    .execute();
}

/** Keeps an online agent's presence fresh while their console's stream is open; leaves an away one alone. */
export async function refreshPresence(ctx: Pick<ConversationContext, 'db'>, userId: number, tenantId: number): Promise<string> {
  const updated_at = nowIso();
  await ctx.db.updateTable('agent_presence').set({ updated_at }).where('user_id', '=', userId).where('tenant_id', '=', tenantId).execute();
  return updated_at;
}

/** The menu's count and the dashboard's queues: waiting chats, the longest wait and agents online, per queue. */
export async function conversationSummary(ctx: ConversationContext, scope: Scope): Promise<ConversationSummary> {
  const tenantId = tenantFilterOf(scope);
  const mine = await queuesOf(ctx, scope);
  let queuesQuery = ctx.db.selectFrom('destinations').select(['id', 'name', 'tenant_id']).where('chat_target', '=', 'queue').orderBy('name');
  if (tenantId !== undefined) queuesQuery = queuesQuery.where('tenant_id', '=', tenantId);
  if (mine !== null) queuesQuery = mine.length === 0 ? queuesQuery.where(sql<boolean>`1 = 0`) : queuesQuery.where('id', 'in', mine);
  const queues = await queuesQuery.execute();
  const ids = queues.map((queue) => queue.id);
  const now = Date.now();
  const waiting =
    ids.length === 0
      ? []
      : await ctx.db
          .selectFrom('conversations')
          .select(['destination_id', (eb) => eb.fn.countAll<string | number>().as('count'), (eb) => eb.fn.min('created_at').as('oldest')])
          .where('status', '=', 'waiting')
          .where('destination_id', 'in', ids)
          .groupBy('destination_id')
          .execute();
  const waitingOf = new Map(waiting.map((row) => [row.destination_id, row]));
  const online = new Map<number, number>();
  for (const tenant of new Set(queues.map((queue) => queue.tenant_id))) {
    for (const [id, count] of await agentsOnline(ctx.db, tenant, queues.filter((queue) => queue.tenant_id === tenant).map((queue) => queue.id), now)) online.set(id, count);
  }
  let unreadQuery = ctx.db.selectFrom('conversations').select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('unread_for_agent'), eb.lit(0)).as('unread')).where('status', '=', 'open').where('agent_id', '=', scope.actor.userId);
  if (tenantId !== undefined) unreadQuery = unreadQuery.where('tenant_id', '=', tenantId);
  const unread = Number((await unreadQuery.executeTakeFirstOrThrow()).unread);
  const perQueue = queues.map((queue) => {
    const row = waitingOf.get(queue.id);
    const oldest = row?.oldest ? Date.parse(row.oldest) : now;
    return { id: queue.id, name: queue.name, waiting: Number(row?.count ?? 0), longest_wait_s: Math.max(0, Math.round((now - oldest) / 1000)), agents_online: online.get(queue.id) ?? 0 };
  });
  return { waiting: perQueue.reduce((sum, queue) => sum + queue.waiting, 0), unread, queues: perQueue };
}

/** The conversation that holds the session now (waiting or open), if any: where the customer's messages go. */
export async function activeConversationOf(db: Kysely<Database>, sessionId: string): Promise<ConversationRecord | undefined> {
  return db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).where('status', '<>', 'closed').executeTakeFirst();
}

type ReportHandOff = NonNullable<CallReportRecord['handoffs']>[number];

const secondsBetween = (from: string | null, to: string | null): number | null =>
  from === null || to === null ? null : Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));

/**
 * The hand-offs of each session, for its report: the queue, the agent, the wait (until taken, or
 * until closed untaken), the handling (taken until closed) and the outcome, with what was said with
 * the person, the agent named. Two queries for any number of sessions.
 */
export async function handOffsOfSessions(db: Kysely<Database>, media: MediaUrls, sessionIds: readonly string[]): Promise<Map<string, ReportHandOff[]>> {
  const bySession = new Map<string, ReportHandOff[]>();
  if (sessionIds.length === 0) return bySession;
  const rows = await selectRows(db).where('c.session_id', 'in', sessionIds).orderBy('c.id').execute();
  const ids = rows.map((row) => row.id);
  const messages =
    ids.length === 0
      ? []
      : await db
          .selectFrom('conversation_messages as m')
          .leftJoin('users as u', 'u.id', 'm.agent_id')
          .select(['m.conversation_id', 'm.author', 'm.text', 'm.attachment', 'm.created_at', 'u.name as agent_name'])
          .where('m.conversation_id', 'in', ids)
          .orderBy('m.id')
          .execute();
  for (const row of rows) {
    const handOff: ReportHandOff = {
      conversation_id: row.id,
      queue: row.destination_id !== null && row.queue_name !== null ? { id: row.destination_id, name: row.queue_name } : null,
      agent: row.agent_id !== null && row.agent_name !== null ? { id: row.agent_id, name: row.agent_name } : null,
      outcome: row.outcome,
      wait_s: secondsBetween(row.created_at, row.taken_at ?? row.closed_at),
      handling_s: secondsBetween(row.taken_at, row.closed_at),
      messages: messages
        .filter((message) => message.conversation_id === row.id)
        .map((message) => ({
          author: message.author,
          agent_name: message.author === 'agent' ? (message.agent_name ?? row.queue_name) : message.author === 'note' ? message.agent_name : null,
          text: message.text,
          attachment: attachmentView(media, message.attachment),
          at: message.created_at,
        })),
    };
    bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), handOff]);
  }
  return bySession;
}
