/**
 * The outside desk (docs/handoff.md, "Keeping the conversation"): a URL chat destination whose
 * receiver answers `{"status":"accepted"}` keeps the chat as a person would in the console. It
 * writes back through the reply URL with the conversation's token, and hears the customer's later
 * messages as signed `chat.message` events posted to the destination's URL.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { conversationCloseSchema, conversationMessageInputSchema } from '@voxplan/contracts';
import { OutboundError } from '@voxplan/engine/ports';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conflict, unauthorized } from '../../errors.ts';
import type { DeskHandOff } from '../sessions/sessions.service.ts';
import { webhookSecretOf } from '../plan-webhook/plan-webhook.service.ts';
import { signedRequestHeaders } from '../plan-webhook/plan-webhook.signature.ts';
import { addMessage, type ConversationContext, closeRecord, handOffValues, parkSession } from './conversations.service.ts';
import { type CustomerMessageListener, deliverToCustomer } from '../../channels/router.ts';

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

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The reply URL of the hand-off the turn at `revision` of a session starts: what the desk posts to. */
export const replyUrlOf = (publicUrl: string, apiPrefix: string, sessionId: string, revision: number): string =>
  `${publicUrl}${apiPrefix}/handoff/${encodeURIComponent(sessionId)}/${revision}`;

/**
 * The runtime's side of the outside desk: a reply URL and a new token for each hand-off (sent in
 * its body, the same on every attempt), and the conversation the desk holds once it answers
 * `accepted`, with only the token's hash stored.
 */
export function createDeskHandOff(ctx: ConversationContext, apiPrefix: string): DeskHandOff {
  return {
    reply: (sessionId, revision) => ({ url: replyUrlOf(ctx.config.publicUrl, apiPrefix, sessionId, revision), token: randomBytes(32).toString('base64url') }),
    async accepted(request) {
      const now = new Date().toISOString();
      await parkSession(ctx, request.session.id, { ...handOffValues(request, now), taken_at: now, status: 'open', reply_token_hash: hashOf(request.token) });
    },
  };
}

const replyParams = z.object({ session_id: z.string().min(1).max(200), revision: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * The desk's reply routes: public, the conversation's token in `Authorization: Bearer` standing for
 * a sign-in. A wrong or missing token, or one of another hand-off, answers 401 reply_token_invalid.
 */
export function registerDeskRoutes(app: FastifyInstance, ctx: ConversationContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  async function conversationOf(request: FastifyRequest, params: z.infer<typeof replyParams>) {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    const found = await ctx.db
      .selectFrom('conversations')
      .selectAll()
      .where('session_id', '=', params.session_id)
      .where('handoff_revision', '=', params.revision)
      .where('reply_token_hash', 'is not', null)
      .executeTakeFirst();
    const expected = Buffer.from(found?.reply_token_hash ?? '0'.repeat(64), 'hex');
    if (!found || token === '' || !timingSafeEqual(expected, Buffer.from(hashOf(token), 'hex'))) throw unauthorized('reply_token_invalid');
    if (found.status === 'closed') throw conflict('conversation_closed');
    return found;
  }

  routes.post(
    '/handoff/:session_id/:revision/messages',
    {
      schema: {
        tags: ['handoff'],
        security: [],
        params: replyParams,
        body: conversationMessageInputSchema,
        description: 'An outside desk’s message to the customer of a conversation it accepted; `Authorization: Bearer <reply token>` from the hand-off. See docs/handoff.md.',
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const found = await conversationOf(request, request.params);
      const message = (await addMessage(ctx, found, { author: 'agent', text: request.body.text, attachment: request.body.attachment ?? null }))!;
      const failure = await deliverToCustomer(ctx, found, message);
      if (failure) request.log.warn({ conversation_id: found.id, reason: failure }, 'desk message not sent to the customer');
      return reply.status(204).send(null);
    },
  );

  routes.post(
    '/handoff/:session_id/:revision/close',
    {
      schema: {
        tags: ['handoff'],
        security: [],
        params: replyParams,
        body: conversationCloseSchema,
        description: 'The desk closes the conversation: resolved ends the chat, back_to_plan resumes the plan from the destination block’s `answer` exit.',
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const found = await conversationOf(request, request.params);
      if (!(await closeRecord(ctx, found, request.body.outcome))) throw conflict('conversation_closed');
      return reply.status(204).send(null);
    },
  );
}
