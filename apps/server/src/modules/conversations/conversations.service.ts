/**
 * Conversations (issue 30, docs/conversations.md): what the inbox reads. A chat that reaches a queue
 * destination waits for one of the queue's agents (queue-handoff.ts); the agent who takes it talks with
 * the customer until they close it (agent-actions.ts); agents say whether they answer (presence.ts).
 * This file lists the conversations, shows one, sums up the queues and gives the reports their hand-offs.
 */
import { type CallReportRecord, type ConversationDetail, conversationLimits, type ConversationRow, type ConversationSummary } from '@voxplan/contracts';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { AppContext, Scope } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { tenantFilterOf } from '../../plugins/auth.ts';
import { parseSession } from '../sessions/sessions.repository.ts';
import type { MediaUrls } from '../audios/media-urls.ts';
import { attachmentView } from './attachment-store.ts';
import { windowClosesAt } from './customer-window.ts';
import {
  type ConversationContext,
  type ConversationRecord,
  findConversation,
  mediaOf,
  presentMessage,
  presentRows,
  rowOf,
  selectRows,
} from './conversation-records.ts';
import { agentsOnline } from './presence.ts';

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
