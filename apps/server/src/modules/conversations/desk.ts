/**
 * The outside desk (docs/handoff.md, "Keeping the conversation"): a URL chat destination whose
 * receiver answers `{"status":"accepted"}` keeps the chat as a person would in the console. It
 * writes back through the reply URL with the conversation's token, and hears the customer's later
 * messages as signed `chat.message` events posted to the destination's URL.
 */
import { OutboundError } from '@voxplan/engine/ports';
import { webhookSecretOf } from '../plan-webhook/plan-webhook.service.ts';
import { signedRequestHeaders } from '../plan-webhook/plan-webhook.signature.ts';
import type { ConversationContext } from './conversations.service.ts';
import type { CustomerMessageListener } from './router.ts';

export const CHAT_MESSAGE_EVENT = 'chat.message';
/** One attempt at most: the customer's next message is not held behind a slow desk. */
const EVENT_TIMEOUT_MS = 10_000;

/**
 * Posts a customer's message to the desk that holds the conversation, signed like the hand-off.
 * One attempt: a desk that misses one still reads the whole chat through the session's report.
 */
export function deskEvents(ctx: ConversationContext, log: (message: string) => void = () => {}): CustomerMessageListener {
  return async (conversation, message) => {
    if (conversation.reply_token_hash === null || conversation.destination_id === null) return;
    const destination = await ctx.db.selectFrom('destinations').select(['uri']).where('id', '=', conversation.destination_id).executeTakeFirst();
    if (!destination?.uri) return;
    const session = await ctx.db.selectFrom('sessions').select(['plan_id']).where('id', '=', conversation.session_id).executeTakeFirst();
    const id = `${conversation.session_id}:message:${message.id}`;
    const body = JSON.stringify({
      id,
      event: CHAT_MESSAGE_EVENT,
      created_time: message.created_at,
      tenant_id: conversation.tenant_id,
      plan_id: session?.plan_id ?? null,
      data: { session_id: conversation.session_id, caller: conversation.caller, text: message.text, attachment: message.attachment, at: message.created_at },
    });
    const { secret } = await webhookSecretOf(ctx, ctx.db, conversation.tenant_id);
    const headers = signedRequestHeaders(secret, { body, timestampSeconds: Math.floor(Date.now() / 1000), userAgent: 'Voxplan-Handoff/1', event: CHAT_MESSAGE_EVENT, delivery: id });
    try {
      const answer = await ctx.outbound.request({ method: 'POST', url: destination.uri, headers, body, timeoutMs: EVENT_TIMEOUT_MS });
      if (answer.status < 200 || answer.status >= 300) log(`chat.message of session ${conversation.session_id} to the desk: HTTP ${answer.status}`);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      log(`chat.message of session ${conversation.session_id} to the desk: ${error.failure}: ${error.message}`);
    }
  };
}
