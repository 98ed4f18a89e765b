/**
 * The customer service window of a chat (docs/conversations.md, "The customer service window"):
 * where the channel lets a business write freely only for a while after the customer's last
 * message (`ChannelLimits.customerWindowMs`, WhatsApp's 24 hours), the agent's free text, files and
 * links are refused once it has closed, before anything is stored, and the console is told when it
 * closes. The channel says when the customer last wrote (its own record, the one it sends by).
 */
import type { Selectable } from 'kysely';
import type { ConversationTable } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { ConversationContext } from './conversation-records.ts';

type WindowedConversation = Pick<Selectable<ConversationTable>, 'tenant_id' | 'session_id' | 'provider' | 'caller'>;

/** Whether the conversation's channel has a customer service window at all. */
export const hasCustomerWindow = (ctx: Pick<ConversationContext, 'channels'>, provider: string): boolean => {
  const channel = ctx.channels.get(provider);
  return channel?.limits.customerWindowMs != null && channel.chat?.customerLastWrote !== undefined;
};

/** When the window closes (ISO; past once it has), or null: a channel without one, or a customer who never wrote. */
export async function windowClosesAt(ctx: Pick<ConversationContext, 'db' | 'keys' | 'config' | 'channels'>, conversation: WindowedConversation): Promise<string | null> {
  const channel = ctx.channels.get(conversation.provider);
  const windowMs = channel?.limits.customerWindowMs;
  const lastWrote = channel?.chat?.customerLastWrote;
  if (windowMs == null || !lastWrote) return null;
  const session = await ctx.db.selectFrom('sessions').select('called').where('id', '=', conversation.session_id).executeTakeFirst();
  if (!session) return null;
  const last = await lastWrote(ctx, { tenant_id: conversation.tenant_id, session_id: conversation.session_id, caller: conversation.caller, called: session.called });
  return last === null ? null : new Date(Date.parse(last) + windowMs).toISOString();
}

/**
 * Refuses a free-form message (text, a file, a link) once the window has closed: 409
 * `customer_window_closed`, with when it closed (`params.closed_at`, absent when the customer never
 * wrote). Within it, or on a channel without one, it passes.
 */
export async function assertInCustomerWindow(ctx: Pick<ConversationContext, 'db' | 'keys' | 'config' | 'channels'>, conversation: WindowedConversation, now = Date.now()): Promise<void> {
  if (!hasCustomerWindow(ctx, conversation.provider)) return;
  const closesAt = await windowClosesAt(ctx, conversation);
  if (closesAt !== null && Date.parse(closesAt) > now) return;
  throw new AppError(409, 'customer_window_closed', undefined, undefined, closesAt === null ? undefined : { closed_at: closesAt });
}
