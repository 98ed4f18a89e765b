/**
 * The agent is told when the customer can no longer be reached (issue 36, docs/conversations.md,
 * "The customer left"): a system message of the conversation whose text is a code the console
 * translates (`customer_left:<reason>`), told to the consoles like any message, never to the
 * customer. WhatsApp: 24 hours after the customer's last message Meta takes no free-form message
 * (the customer service window), so a chat still waiting or open then is marked once per silence.
 * Web chat: the widget asks for the conversation (a long poll of at most 25 s, again at once) only
 * while its panel is open; 90 s without a question means the customer closed it or left the page
 * (a chat a person holds has no idle timeout: this is the web chat's "the customer went idle").
 * Each is told once per absence: a customer who comes back and leaves again is told again.
 * A chat still WAITING in a queue whose customer left is also ended, as the customer's own leaving
 * would (a hang-up at the destination block: dial status `cancel`, disposition `abandoned`), and
 * the runtime's `chatEnded` closes its conversation `abandoned` (closeLeftConversation), so that no
 * agent takes a chat nobody is on. An open chat stays with its agent, who was told.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { addMessage, type ConversationContext } from './conversation-records.ts';

export const customerLeftReasons = ['whatsapp_window', 'widget_closed'] as const;
export type CustomerLeftReason = (typeof customerLeftReasons)[number];
export const customerLeftText = (reason: CustomerLeftReason) => `customer_left:${reason}`;

/** Meta's customer service window: free-form messages only within 24 hours of the customer's last. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long the widget may not ask before its customer counts as gone: over three of its longest polls. */
export const WIDGET_GONE_MS = 90_000;
/** A poll stamps the conversation at most this often, so that a busy chat is not a write per poll. */
const SEEN_EVERY_MS = 20_000;

/** The widget asked for the conversation of `sessionId`: its customer is there. */
export async function markCustomerSeen(db: Kysely<Database>, sessionId: string, now = new Date()): Promise<void> {
  await db
    .updateTable('conversations')
    .set({ customer_seen_at: now.toISOString() })
    .where('session_id', '=', sessionId)
    .where('status', '<>', 'closed')
    .where((eb) => eb.or([eb('customer_seen_at', 'is', null), eb('customer_seen_at', '<', new Date(now.getTime() - SEEN_EVERY_MS).toISOString())]))
    .execute();
}

/**
 * Chats a person holds or that wait whose customer is gone (above), not told since they were last
 * there: each gets its notice. Answers their ids. Run by every instance's chat sweep; two instances
 * at once could tell one twice, which says the same thing twice.
 */
export async function sweepCustomersGone(ctx: ConversationContext, now = new Date(), batch = 200): Promise<number[]> {
  const lastCustomerMessage = sql<string>`coalesce((select max(m.created_at) from conversation_messages m where m.conversation_id = c.id and m.author = 'customer'), c.created_at)`;
  const lastSeen = sql<string>`coalesce(c.customer_seen_at, c.created_at)`;
  const rules: Array<{ provider: string; reason: CustomerLeftReason; since: RawBuilder<string>; afterMs: number }> = [
    { provider: 'whatsapp', reason: 'whatsapp_window', since: lastCustomerMessage, afterMs: WHATSAPP_WINDOW_MS },
    { provider: 'webchat', reason: 'widget_closed', since: lastSeen, afterMs: WIDGET_GONE_MS },
  ];
  const told: number[] = [];
  for (const { provider, reason, since, afterMs } of rules) {
    const notice = customerLeftText(reason);
    const gone = await ctx.db
      .selectFrom('conversations as c')
      .select(['c.id', 'c.tenant_id', 'c.session_id', 'c.status'])
      .where('c.provider', '=', provider)
      .where('c.status', '<>', 'closed')
      .where(since, '<=', new Date(now.getTime() - afterMs).toISOString())
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('conversation_messages as n')
              .select('n.id')
              .whereRef('n.conversation_id', '=', 'c.id')
              .where('n.author', '=', 'system')
              .where('n.text', '=', notice)
              .where('n.created_at', '>=', since),
          ),
        ),
      )
      .orderBy('c.id')
      .limit(batch)
      .execute();
    for (const record of gone) {
      await addMessage(ctx, record, { author: 'system', text: notice });
      // The event id makes instances that find it at once end it once.
      if (record.status === 'waiting') await ctx.sessions.resumeParked(record.session_id, `customer-left:${record.id}`, { type: 'hangup' });
    }
    told.push(...gone.map((record) => record.id));
  }
  return told;
}
