/**
 * WhatsApp conversations the business starts (docs/outbound.md, "WhatsApp"): nothing rings. The
 * core starts the plan as a chat toward the customer at once and hands its first turn here; its
 * replies go out through `sendWhatsApp` as any turn's, so outside the customer's window only a
 * template goes (the template block), and a free-form first message fails clearly instead.
 */
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { dailyReach } from '../../modules/outbound-calls/daily-reach.ts';
import type { ChatOpening, OutboundDial, OutboundDialer } from '../channel.ts';
import { accountByNumber, sendReplies } from './whatsapp-channel.ts';

/** Meta's pace per number by default: 80 messages a second (its throughput guide); the campaigns keep under it. */
export const WHATSAPP_MESSAGES_PER_SECOND = 80;

/** An opening that did not go, in the outcome's words: Meta's 131047 is `reengagement_needed` (its code, or the reason the channel named it by). */
function notSent(reason: string, code?: number): ChatOpening {
  if (reason === 'outside_customer_window') return { ok: false, code: 'outside_customer_window', message: 'the first message is not a template and the customer wrote nothing in 24 hours' };
  const message = code === undefined ? reason : `${code} ${reason}`;
  return { ok: false, code: code === 131047 || reason === 'reengagement_needed' || /\b131047\b/.test(reason) ? 'reengagement_needed' : 'message_undelivered', message };
}

async function place(ctx: AppContext, call: OutboundDial): Promise<{ provider_call_id: string }> {
  const account = await accountByNumber(ctx, call.tenant_id, call.from);
  if (!account?.token || account.phone_number_id === '') {
    throw new AppError(422, 'outbound_provider_not_configured', [{ path: 'from', message: `${call.from} has no WhatsApp access token and phone number id` }]);
  }
  // Meta names the opening message once it is sent (`open`): that id is the call's.
  return { provider_call_id: '' };
}

/**
 * Sends the first turn: its replies (free-form) through `sendWhatsApp`; a template block sent its
 * template itself while the turn ran (the Templates port), its action telling whether it went. The
 * opening message is the first the session sent; outside the window a plan's free-form first
 * message is withheld (by the engine, or by `sendWhatsApp`) and the opening fails clearly.
 */
async function open(ctx: AppContext, call: OutboundDial, first: TurnOutcome): Promise<ChatOpening> {
  const account = await accountByNumber(ctx, call.tenant_id, call.from);
  if (!account) return { ok: false, code: 'message_undelivered', message: 'not_configured' };
  const head = first.actions.find((action) => action.type === 'reply' || action.type === 'template');
  if (head?.type === 'template' && head.status === 'failed') return notSent(head.reason ?? 'not_sent');
  const sent = await sendReplies(ctx, account, call.to, call.session_id, first.actions);
  // After a template that went, a reply refused is the conversation's own matter, not its opening's.
  if (!sent.ok && head?.type !== 'template') return notSent(sent.reason, 'code' in sent && typeof sent.code === 'number' ? sent.code : undefined);
  const opening = await ctx.db
    .selectFrom('whatsapp_messages')
    .select('id')
    .where('session_id', '=', call.session_id)
    .where('direction', '=', 'outbound')
    .orderBy('sent_time')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (opening) return { ok: true, message_id: opening.id };
  const stored = await ctx.sessions.find(call.session_id);
  if (stored?.session.path.some((entry) => entry.reason === 'outside_customer_window')) return notSent('outside_customer_window');
  return { ok: false, code: 'message_undelivered', message: 'the plan’s first turn sends the customer nothing' };
}

export const whatsappDialer: OutboundDialer = {
  place,
  callsPerSecond: WHATSAPP_MESSAGES_PER_SECOND,
  chat: { open, reach: (ctx, numberId, now) => dailyReach(ctx.db, numberId, now) },
};

/**
 * A delivery status of one of the number's messages, told to the outbound core when the message
 * opened an outbound chat (the core ignores any other): delivered or read settles the outcome as
 * `answer`; failed makes it `failed` with Meta's code (131047: `reengagement_needed`).
 */
export async function tellOpeningStatus(
  ctx: AppContext,
  numberId: number,
  messageId: string,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  error: { code?: number | undefined; title?: string | undefined } | undefined,
): Promise<void> {
  if (status === 'sent') return;
  const message = await ctx.db.selectFrom('whatsapp_messages').select('session_id').where('id', '=', messageId).where('number_id', '=', numberId).where('direction', '=', 'outbound').executeTakeFirst();
  if (!message?.session_id) return;
  if (status !== 'failed') return ctx.outboundCalls.openingStatus(message.session_id, messageId, { status });
  const text = `${error?.code ?? ''} ${error?.title ?? ''}`.trim() || 'failed';
  await ctx.outboundCalls.openingStatus(message.session_id, messageId, { status: 'failed', code: error?.code === 131047 ? 'reengagement_needed' : 'message_undelivered', message: text });
}
