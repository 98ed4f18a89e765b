/**
 * The conversations' API (docs/conversations.md): the lists, a chat with its transcript, take,
 * messages, typing, transfer, close, read; the agent's presence; the summary for the menu and the
 * dashboard; and the live events of every instance as Server-Sent Events. Guests read only.
 */
import {
  agentPresenceSchema,
  agentSchema,
  conversationCloseSchema,
  conversationDetailSchema,
  conversationListQuerySchema,
  conversationMessageBodySchema,
  conversationMessageSchema,
  conversationNoteInputSchema,
  conversationRowSchema,
  conversationSummarySchema,
  conversationTransferSchema,
  type ConversationMessage,
  whatsappTemplateSchema,
} from '@voxplan/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext, Scope } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { eventStreams, sendEventStream, sseMessage } from '../../lib/event-stream.ts';
import { scopeOf, tenantFilterOf, writerGuard } from '../../plugins/auth.ts';
import { conversationTemplates, postAgentTemplate } from './agent-templates.ts';
import { registerConversationAttachmentRoutes } from './attachments.ts';
import { subscribeConversations } from './conversation-events.ts';
import { postNote } from './notes.ts';
import { agentTyping, closeConversation, markRead, postAgentMessage, takeConversation, transferConversation } from './agent-actions.ts';
import { type ConversationRecord } from './conversation-records.ts';
import { conversationDetail, conversationSummary, listConversations } from './conversations.service.ts';
import { listAgents, offlineUnlessBack, PRESENCE_RECONNECT_GRACE_MS, presenceOf, refreshPresence, setPresence } from './presence.ts';
import { deliverToCustomer } from './customer-router.ts';

const tags = ['conversations'];
const idParams = z.object({ id: z.coerce.number().int().positive().max(2 ** 31 - 1) });

/**
 * How often an open stream says its agent is still there, and how long a console has to open again
 * a stream its token ended; read when a stream opens and ends, so a test can shorten them.
 */
export const conversationStreamTiming = { pingMs: 15_000, reconnectGraceMs: PRESENCE_RECONNECT_GRACE_MS };

/** The tenant an agent's presence belongs to: an administrator working over every tenant has none. */
function presenceTenant(scope: Scope): number {
  if (scope.tenantId === null) throw badRequest('no_tenant_provided');
  return scope.tenantId;
}

export async function registerConversationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  /** The agent's message reaches the customer; a failure is logged, the message stays stored and shown. */
  const deliver = async (request: FastifyRequest, record: ConversationRecord, stored: ConversationMessage) => {
    const failure = await deliverToCustomer(ctx, record, stored);
    if (failure) request.log.warn({ conversation_id: record.id, reason: failure }, 'agent message not sent to the customer');
  };
  const openStreams = eventStreams(app);
  /** Streams open on this instance per agent and tenant: the last one closing takes the agent offline. */
  const streamsOf = new Map<string, number>();
  /** Waits for consoles to come back after their stream's token expired (offlineUnlessBack), cleared when the app closes. */
  const graceTimers = new Set<NodeJS.Timeout>();
  app.addHook('onClose', async () => {
    for (const timer of graceTimers) clearTimeout(timer);
    graceTimers.clear();
  });

  routes.get(
    '/conversations',
    {
      schema: {
        tags,
        querystring: conversationListQuerySchema,
        description:
          'One page (50) of conversations. waiting: those of the queues the caller serves (every queue for administrators and guests), longest wait first; ' +
          'open: the caller’s own (all of the tenant’s for administrators and guests); closed: latest first, `q` searching caller, protocol, queue, agent, the customer’s name and e-mail, and messages (case ignored).',
        response: { 200: z.array(conversationRowSchema) },
      },
    },
    async (request) => listConversations(ctx, scopeOf(request), request.query),
  );

  routes.get(
    '/conversations/summary',
    { schema: { tags, description: 'Chats waiting in the caller’s queues, their unread messages, and per queue: waiting, longest wait, agents online.', response: { 200: conversationSummarySchema } } },
    async (request) => conversationSummary(ctx, scopeOf(request)),
  );

  routes.get(
    '/conversations/events',
    {
      schema: {
        tags,
        produces: ['text/event-stream'],
        description:
          'Server-Sent Events of the tenant’s conversations, from every instance: conversation.waiting, .taken, .message, .closed, .transferred, .typing (the agent), .customer_typing; ' +
          '`data:` is one JSON object ({conversation_id, conversation | message | agent}, only conversation_id for .customer_typing). A `: ping` comment comes every 15 s. Ends like GET /stats/live/events ' +
          '(`: closed token_expired`, `: closed sign_in_ended`). An open stream makes its agent online (unless they chose away); the last one closing, offline (when its token expired, only if no console of theirs opens a stream again within 15 s: the console opens it again at once with a fresh token).',
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const tenantId = tenantFilterOf(scope);
      const userId = scope.actor.userId;
      // Presence is per tenant: an administrator over every tenant and a guest (who answers nothing) have none.
      const agentTenant = scope.tenantId !== null && scope.actor.role !== 'guest' ? scope.tenantId : null;
      const key = `${userId}:${agentTenant}`;
      /** The last presence this stream wrote: what its end compares, should its token end it. */
      let stamp: string | undefined;
      if (agentTenant !== null) {
        streamsOf.set(key, (streamsOf.get(key) ?? 0) + 1);
        if ((await presenceOf(ctx, userId, agentTenant)) !== 'away') stamp = await setPresence(ctx, userId, agentTenant, 'online');
      }
      const log = (error: unknown) => request.log.warn({ err: error }, 'agent presence not kept');
      return sendEventStream(app, openStreams, request, reply, {
        pingMs: conversationStreamTiming.pingMs,
        subscribe: (send) => subscribeConversations(ctx.bus, ({ event }) => send(sseMessage(event)), tenantId === undefined ? {} : { tenantId }),
        onPing: () => {
          if (agentTenant !== null)
            refreshPresence(ctx, userId, agentTenant).then((written) => {
              if (stamp !== undefined) stamp = written;
            }, log);
        },
        onEnd: (reason) => {
          if (agentTenant === null) return;
          const left = (streamsOf.get(key) ?? 1) - 1;
          if (left > 0) return void streamsOf.set(key, left);
          streamsOf.delete(key);
          if (reason !== 'token_expired') return void setPresence(ctx, userId, agentTenant, 'offline').catch(log);
          // Its token expired: the console opens it again with a fresh one, perhaps on another
          // instance, and the agent stays online meanwhile (a chat arriving then would take `busy`);
          // a console that does not come back within the grace (a tab closed just then) is gone.
          if (stamp === undefined) return;
          const written = stamp;
          const timer = setTimeout(() => {
            graceTimers.delete(timer);
            if (!streamsOf.has(key)) offlineUnlessBack(ctx, userId, agentTenant, written).catch(log);
          }, conversationStreamTiming.reconnectGraceMs);
          graceTimers.add(timer);
        },
      });
    },
  );

  routes.get(
    '/conversations/:id',
    { schema: { tags, params: idParams, description: 'The conversation, its messages, the plan’s part of the chat (bot_transcript), the plan’s variables.', response: { 200: conversationDetailSchema } } },
    async (request) => conversationDetail(ctx, scopeOf(request), request.params.id),
  );

  routes.post(
    '/conversations/:id/take',
    { ...writerGuard, schema: { tags, params: idParams, description: 'Takes a waiting conversation for the caller; 409 conversation_taken when another agent took it first.', response: { 200: conversationRowSchema } } },
    async (request) => takeConversation(ctx, scopeOf(request), request.params.id),
  );

  routes.post(
    '/conversations/:id/messages',
    {
      ...writerGuard,
      schema: {
        tags,
        params: idParams,
        body: conversationMessageBodySchema,
        description:
          'The agent’s message to the customer (only the agent holding the conversation). `{text, attachment?}`: to the web chat’s widget, or WhatsApp within its 24-hour window ' +
          '(past it 409 customer_window_closed, nothing stored: the detail’s window_closes_at says when). `{template: {name, language, values}}` (WhatsApp, in or out of the window): one of the number’s approved ' +
          'templates with a value per parameter key (header.1, body.1…, button.<index>), sent first and stored only once Meta took it, as its text with the values (`template` set). ' +
          'Refusals: 422 template_not_found, template_not_approved, template_value_missing, template_value_invalid, number_not_whatsapp (another channel), whatsapp_meta_refused; 503 whatsapp_meta_unreachable.',
        response: { 201: conversationMessageSchema },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const body = request.body;
      const message =
        'template' in body
          ? await postAgentTemplate(ctx, scope, request.params.id, body.template)
          : await postAgentMessage(ctx, scope, request.params.id, body, (record, stored) => deliver(request, record, stored));
      return reply.status(201).send(message);
    },
  );

  routes.get(
    '/conversations/:id/templates',
    {
      schema: {
        tags,
        params: idParams,
        description: 'The message templates the conversation’s number may send (WhatsApp: its approved ones, as last synced), for the composer past the 24-hour window; empty on other channels.',
        response: { 200: z.array(whatsappTemplateSchema.omit({ tenant_id: true })) },
      },
    },
    async (request) => conversationTemplates(ctx, scopeOf(request), request.params.id),
  );

  await registerConversationAttachmentRoutes(app, ctx, deliver);

  routes.post(
    '/conversations/:id/typing',
    { ...writerGuard, schema: { tags, params: idParams, description: 'The agent is typing: the customer’s widget shows it for a few seconds.', response: { 204: z.null() } } },
    async (request, reply) => {
      await agentTyping(ctx, scopeOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  routes.post(
    '/conversations/:id/transfer',
    { ...writerGuard, schema: { tags, params: idParams, body: conversationTransferSchema, description: 'To another queue (it waits there) or an agent of the tenant (theirs at once).', response: { 200: conversationRowSchema } } },
    async (request) => transferConversation(ctx, scopeOf(request), request.params.id, request.body),
  );

  routes.post(
    '/conversations/:id/close',
    {
      ...writerGuard,
      schema: {
        tags,
        params: idParams,
        body: conversationCloseSchema,
        description:
          'resolved: the chat ends, and the customer gets the queue’s closing message (its closing_message_en or _pt by the chat’s language: the plan’s, else the tenant’s; else the default); back_to_plan: the plan goes on from the destination block’s `answer` exit.',
        response: { 200: conversationRowSchema },
      },
    },
    async (request) => closeConversation(ctx, scopeOf(request), request.params.id, request.body.outcome, (record, stored) => deliver(request, record, stored)),
  );

  routes.post(
    '/conversations/:id/notes',
    {
      ...writerGuard,
      schema: {
        tags,
        params: idParams,
        body: conversationNoteInputSchema,
        description: 'A private note on the conversation: the tenant’s agents see it in the transcript and the report; it is never sent to the customer. Any agent of the tenant, in any state of the chat.',
        response: { 201: conversationMessageSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await postNote(ctx, scopeOf(request), request.params.id, request.body.text)),
  );

  routes.post(
    '/conversations/:id/read',
    { ...writerGuard, schema: { tags, params: idParams, description: 'The agent read the conversation: its unread count is cleared. A write (the agent’s count changes): 403 readonly_only for a guest.', response: { 204: z.null() } } },
    async (request, reply) => {
      await markRead(ctx, scopeOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  routes.get(
    '/agents',
    {
      schema: {
        tags,
        description:
          'Everyone who may answer the tenant’s chats (its users and the administrators), by name, with their presence there: a queue’s agents and a transfer’s person are chosen from it. ' +
          'Every user of the tenant may read it, guests too; an administrator names the tenant (400 no_tenant_provided over every tenant).',
        response: { 200: z.array(agentSchema) },
      },
    },
    async (request) => listAgents(ctx, presenceTenant(scopeOf(request))),
  );

  routes.get('/agents/me', { schema: { tags, description: 'The caller’s presence in the tenant.', response: { 200: agentPresenceSchema } } }, async (request) => {
    const scope = scopeOf(request);
    return { status: await presenceOf(ctx, scope.actor.userId, presenceTenant(scope)) };
  });

  routes.put(
    '/agents/me',
    { ...writerGuard, schema: { tags, body: agentPresenceSchema, description: 'Sets the caller’s presence: online, away or offline.', response: { 200: agentPresenceSchema } } },
    async (request) => {
      const scope = scopeOf(request);
      const tenantId = presenceTenant(scope);
      await setPresence(ctx, scope.actor.userId, tenantId, request.body.status);
      return { status: request.body.status };
    },
  );
}
