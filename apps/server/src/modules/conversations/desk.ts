/**
 * The outside desk (docs/handoff.md, "Keeping the conversation"): a URL chat destination whose
 * receiver answers `{"status":"accepted"}` keeps the chat as a person would in the console. It
 * writes back through the reply URL with the conversation's token, and hears the customer's later
 * messages as signed `chat.message` events posted to the destination's URL.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { conversationCloseSchema, conversationMessageInputSchema } from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conflict, unauthorized } from '../../errors.ts';
import type { DeskHandOff } from '../sessions/sessions.service.ts';
import { createPlanWebhookDispatcher } from '../plan-webhook/plan-webhook.dispatcher.ts';
import { enqueuePlanEvent } from '../plan-webhook/plan-webhook.service.ts';
import { addMessage, type ConversationContext } from './conversation-records.ts';
import { closeRecord, handOffValues, parkSession } from './queue-handoff.ts';
import { type CustomerMessageListener, deliverToCustomer } from './customer-router.ts';

export const CHAT_MESSAGE_EVENT = 'chat.message';
/** The first attempt, made at once: the customer's next message is not held behind a slow desk. */
const EVENT_TIMEOUT_MS = 10_000;

/**
 * Sends a customer's message to the desk that holds the conversation, signed like the hand-off. The
 * event is queued first with the plan webhook's deliveries (persisted: a restart loses none), tried
 * once at once, and retried with their backoff and attempts when that fails (docs/handoff.md). Its
 * delivery id is the idempotency key: the same body `id` and `X-Voxplan-Delivery` on every attempt.
 */
export function deskEvents(ctx: ConversationContext, log: (message: string) => void = () => {}): CustomerMessageListener {
  return async (conversation, message) => {
    if (conversation.reply_token_hash === null || conversation.destination_id === null) return;
    const destination = await ctx.db.selectFrom('destinations').select(['uri']).where('id', '=', conversation.destination_id).executeTakeFirst();
    if (!destination?.uri) return;
    const session = await ctx.db.selectFrom('sessions').select(['plan_id']).where('id', '=', conversation.session_id).executeTakeFirst();
    if (!session) return;
    const id = await enqueuePlanEvent(ctx.db, {
      tenantId: conversation.tenant_id,
      planId: session.plan_id,
      url: destination.uri,
      event: CHAT_MESSAGE_EVENT,
      payload: { session_id: conversation.session_id, caller: conversation.caller, text: message.text, attachment: message.attachment, at: message.created_at },
    });
    const outcome = await createPlanWebhookDispatcher(ctx, { timeoutMs: EVENT_TIMEOUT_MS }).attempt(id);
    if (outcome?.status === 'pending') log(`chat.message of session ${conversation.session_id} to the desk failed; retried later (delivery ${id})`);
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
