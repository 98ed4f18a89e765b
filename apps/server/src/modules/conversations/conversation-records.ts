/**
 * A conversation as stored and as shown (docs/conversations.md): its row with its queue, agent and
 * last message, its messages, and the events that tell every instance's consoles of a change. Every
 * other part of the conversations reads and writes through these.
 */
import { type ChatCustomer, type ConversationEvent, conversationLimits, type ConversationMessage, type ConversationRow } from '@voxplan/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { AppContext, Scope } from '../../context.ts';
import type { ConversationMessageTable, ConversationTable, Database } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { tenantFilterOf } from '../../plugins/auth.ts';
import { createMediaUrls, type MediaUrls } from '../audios/media-urls.ts';
import { attachmentView, type StoredAttachment } from './attachment-store.ts';
import { hasCustomerWindow, windowClosesAt } from './customer-window.ts';
import { publishConversationEvent } from './conversation-events.ts';

/** What the conversations need of the app: everything but the licence (the runtime resumes parked chats). */
export type ConversationContext = Pick<AppContext, 'db' | 'dialect' | 'bus' | 'sessions' | 'keys' | 'config' | 'outbound' | 'channels'>;

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

export function selectRows(db: Kysely<Database>) {
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
export async function presentRows(db: Kysely<Database>, rows: readonly JoinedRow[]): Promise<ConversationRow[]> {
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

export async function rowOf(db: Kysely<Database>, id: number): Promise<ConversationRow> {
  const row = await selectRows(db).where('c.id', '=', id).executeTakeFirstOrThrow();
  return (await presentRows(db, [row]))[0]!;
}

/** Signs the URLs of the conversations' files (each message read signs afresh). */
export const mediaOf = (ctx: Pick<ConversationContext, 'keys' | 'config'>): MediaUrls => createMediaUrls(ctx.keys.mediaKey, ctx.config.publicUrl);

export function presentMessage(media: MediaUrls, message: Selectable<ConversationMessageTable>, agentName: string | null): ConversationMessage {
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


/** The conversation `id` the scope may see; another tenant's is not found. */
export async function findConversation(ctx: ConversationContext, scope: Scope, id: number): Promise<ConversationRecord> {
  const tenantId = tenantFilterOf(scope);
  let query = ctx.db.selectFrom('conversations').selectAll().where('id', '=', id);
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  const found = await query.executeTakeFirst();
  if (!found) throw notFound('conversation_not_found');
  return found;
}

export const byId = (ctx: ConversationContext, id: number) => ctx.db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

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

/** The conversation that holds the session now (waiting or open), if any: where the customer's messages go. */
export async function activeConversationOf(db: Kysely<Database>, sessionId: string): Promise<ConversationRecord | undefined> {
  return db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).where('status', '<>', 'closed').executeTakeFirst();
}
