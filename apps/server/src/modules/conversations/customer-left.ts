/**
 * The agent is told when the customer can no longer be reached (issue 36, docs/conversations.md,
 * "The customer left"): a system message of the conversation whose text is a code the console
 * translates (`customer_left:<reason>`), told to the consoles like any message, never to the
 * customer. WhatsApp: 24 hours after the customer's last message Meta takes no free-form message
 * (the customer service window), so a chat still waiting or open then is marked once per silence.
 */
import { sql } from 'kysely';
import { addMessage, type ConversationContext } from './conversations.service.ts';

export const customerLeftReasons = ['whatsapp_window'] as const;
export type CustomerLeftReason = (typeof customerLeftReasons)[number];
export const customerLeftText = (reason: CustomerLeftReason) => `customer_left:${reason}`;

/** Meta's customer service window: free-form messages only within 24 hours of the customer's last. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * WhatsApp chats a person holds or that wait, whose customer has been silent past the window, not
 * marked since their last message: each gets the notice. Answers their ids. Run by every instance's
 * chat sweep; two instances at once could mark one twice, which says the same thing twice.
 */
export async function sweepCustomersGone(ctx: ConversationContext, now = new Date(), batch = 200): Promise<number[]> {
  const cutoff = new Date(now.getTime() - WHATSAPP_WINDOW_MS).toISOString();
  const notice = customerLeftText('whatsapp_window');
  const lastHeard = sql<string>`coalesce((select max(m.created_at) from conversation_messages m where m.conversation_id = c.id and m.author = 'customer'), c.created_at)`;
  const gone = await ctx.db
    .selectFrom('conversations as c')
    .select(['c.id', 'c.tenant_id', 'c.session_id'])
    .where('c.provider', '=', 'whatsapp')
    .where('c.status', '<>', 'closed')
    .where(lastHeard, '<=', cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('conversation_messages as n')
            .select('n.id')
            .whereRef('n.conversation_id', '=', 'c.id')
            .where('n.author', '=', 'system')
            .where('n.text', '=', notice)
            .where('n.created_at', '>=', lastHeard),
        ),
      ),
    )
    .orderBy('c.id')
    .limit(batch)
    .execute();
  for (const record of gone) await addMessage(ctx, record, { author: 'system', text: notice });
  return gone.map((record) => record.id);
}
