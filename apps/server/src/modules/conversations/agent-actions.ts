/**
 * What an agent does with a conversation (docs/conversations.md): takes it, writes, types, transfers
 * it, closes it and reads it. Each change is one conditional UPDATE, so that of two agents acting at
 * once one wins and the other is told why; each is audited.
 */
import type { ConversationMessage, ConversationRow } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Scope } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { assertAllowed } from '../../plugins/auth.ts';
import { transferDeadline } from './transfer-deadline.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { servesTenant } from './agents.ts';
import type { StoredAttachment } from './attachment-store.ts';
import { closingMessageFor } from './closing-message.ts';
import { assertInCustomerWindow } from './customer-window.ts';
import { tellQueuePlaces } from './queue-place.ts';
import {
  addMessage,
  byId,
  type ConversationContext,
  type ConversationRecord,
  findConversation,
  publish,
  rowOf,
  userName,
} from './conversation-records.ts';
import { closeRecord } from './queue-handoff.ts';
import { publishRow } from './queue-place.ts';

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

export async function markRead(ctx: ConversationContext, scope: Scope, id: number): Promise<void> {
  // It writes the agent's count: a guest is refused as on every write, though it would change nothing.
  assertWriter(scope);
  const found = await findConversation(ctx, scope, id);
  if (found.agent_id !== scope.actor.userId) return;
  await ctx.db.updateTable('conversations').set({ unread_for_agent: 0 }).where('id', '=', id).execute();
}
