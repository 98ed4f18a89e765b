/**
 * The web chat widget's API (docs/channels-webchat.md). Public: the number's public key in the path
 * is what names the number, and only pages of the number's allowed origins get an answer they can
 * read. Every request is checked in `onRequest`, before its body is even read: an unknown key, a
 * refused origin or a client over its rate gets its error and nothing runs. The conversation is a
 * session of the runtime (docs/sessions.md), so any instance answers any request; replies reach the
 * widget in the answer to its message, and anything the plan says later (the idle timeout, a
 * hand-off's outcome) through a long poll woken by the sessions' live events.
 */
import {
  webchatConversationSchema,
  webchatLimits,
  webchatMessageSchema,
  webchatPollSchema,
  webchatSettingsSchema,
  webchatStartSchema,
  type WebchatConversation,
  type WebchatPrechatField,
} from '@voxplan/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { InstanceBus } from '../../db/instance-bus.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { AppError, conflict, forbidden, notFound } from '../../errors.ts';
import { decryptSecret } from '../../lib/keys.ts';
import { choosePlan, findWebchatNumber } from '../../modules/numbers/number-lookup.ts';
import { subscribeLiveSessions } from '../../modules/sessions/live-events.ts';
import { runningSessions } from '../../modules/sessions/sessions.repository.ts';
import { newSessionId, type StoredSession } from '../../modules/sessions/sessions.service.ts';
import { subscribeConversations } from '../../modules/conversations/conversation-events.ts';
import { markCustomerSeen } from '../../modules/conversations/customer-left.ts';
import { deskEvents } from '../../modules/conversations/desk.ts';
import { mediaOf } from '../../modules/conversations/conversation-records.ts';
import { routeCustomerMessage, routeCustomerTyping } from '../../modules/conversations/customer-router.ts';
import { conversationView, type TypingSince } from './conversation.ts';
import { customerOf } from './customer.ts';
import { WindowCounter } from './rate-limit.ts';
import { registerVisitorFileRoute } from './visitor-files.ts';

const RATE_WINDOW_MS = 60_000;
/** How long the widget shows "… is typing" after the person's last keystroke told. */
const TYPING_SHOWN_MS = 5_000;

interface WebchatNumber {
  id: number;
  tenant_id: number;
  number: string;
  origins: string[];
  /** What the widget asks before the first message. */
  prechat: WebchatPrechatField[];
  /** The key that signs the site's user ids, in clear; null: none made yet. */
  identitySecret: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The web chat number the request's key names, once its origin was allowed. */
    webchatNumber?: WebchatNumber;
  }
}

const keyParams = z.object({ key: z.string().min(1).max(100) });
const conversationParams = keyParams.extend({ id: z.string().min(1).max(200) });

const schemaOf = <Extra extends object>(description: string, extra: Extra) => ({
  schema: { tags: ['webchat'], security: [], description, response: { 200: webchatConversationSchema }, ...extra },
});

/**
 * Wakes the long polls waiting on a session when a turn of it is stored, on any instance. It
 * listens to the live events only while a long poll waits: on SQLite a turn then makes no live
 * events at all when no web chat (and no dashboard) is open.
 */
class TurnWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();
  private stopListening: (() => void) | undefined;
  /** Who is typing in a session's chat, until when (ms): told by the conversation events while someone polls. */
  private readonly typing = new Map<string, { agent_name: string; since: string; until: number }>();

  constructor(private readonly bus: InstanceBus) {}

  private wake(sessionId: string): void {
    const wakers = this.waiting.get(sessionId);
    if (!wakers) return;
    // Each waker takes itself out of the map, and the last one stops the listening.
    for (const wake of wakers) wake();
  }

  close(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /** The person typing in the session's chat now, if one is. */
  typingIn(sessionId: string): TypingSince | null {
    const typing = this.typing.get(sessionId);
    if (!typing || typing.until < Date.now()) {
      this.typing.delete(sessionId);
      return null;
    }
    return { agent_name: typing.agent_name, since: typing.since };
  }

  /**
   * Listens to the conversation events for as long as the app runs (they are few beside the turns'):
   * a person's message or typing wakes the session's polls, and the typing is kept to be shown.
   */
  watchConversations(): () => void {
    return subscribeConversations(this.bus, ({ session_id, event }) => {
      // The widget told it itself: nothing changed for it to read.
      if (event.type === 'conversation.customer_typing') return;
      // An agent's private note is not the customer's to see: their widget has nothing new.
      if (event.type === 'conversation.message' && event.message.author === 'note') return;
      if (event.type === 'conversation.typing') this.typing.set(session_id, { agent_name: event.agent.name, since: new Date().toISOString(), until: Date.now() + TYPING_SHOWN_MS });
      // The person's message ends their typing.
      if (event.type === 'conversation.message') this.typing.delete(session_id);
      this.wake(session_id);
    });
  }

  /** Resolves on the session's next turn, after `ms`, or when `signal` aborts, whichever comes first. */
  wait(sessionId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const wakers = this.waiting.get(sessionId);
        wakers?.delete(done);
        if (wakers?.size === 0) this.waiting.delete(sessionId);
        if (this.waiting.size === 0) this.close();
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      this.stopListening ??= subscribeLiveSessions(this.bus, (event) => this.wake(event.session_id));
      let wakers = this.waiting.get(sessionId);
      if (!wakers) this.waiting.set(sessionId, (wakers = new Set()));
      wakers.add(done);
    });
  }
}

export async function webchatPlugin(app: FastifyInstance, options: { ctx: AppContext }): Promise<void> {
  const { ctx } = options;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const perAddress = new WindowCounter(ctx.config.webchatRatePerAddress, RATE_WINDOW_MS);
  const perKey = new WindowCounter(ctx.config.webchatRatePerKey, RATE_WINDOW_MS);
  const waiters = new TurnWaiters(ctx.bus);
  const stopWatching = waiters.watchConversations();
  app.addHook('onClose', () => {
    stopWatching();
    waiters.close();
  });

  async function numberOfKey(key: string): Promise<WebchatNumber | undefined> {
    const row = await ctx.db
      .selectFrom('numbers')
      .select(['id', 'tenant_id', 'number', 'webchat_origins', 'webchat_prechat', 'webchat_identity_secret'])
      .where('webchat_key', '=', key)
      .where('provider', '=', 'webchat')
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        tenant_id: row.tenant_id,
        number: row.number,
        origins: JSON.parse(row.webchat_origins) as string[],
        prechat: JSON.parse(row.webchat_prechat) as WebchatPrechatField[],
        identitySecret: row.webchat_identity_secret === null ? null : decryptSecret(ctx.keys.secretsKey, row.webchat_identity_secret),
      }
    );
  }

  /** Lets a page of `origin` read the answer, Retry-After included (a 429's and a 503's). */
  const readableBy = (reply: FastifyReply, origin: string) => reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', 'Retry-After').header('vary', 'Origin');

  /**
   * The gate of every request, preflights included, before any body is read. A page of an origin
   * the number does not allow may read one thing: the refusal (`403 webchat_origin_refused`), so
   * that its widget says the chat is not available there instead of failing blind. Its preflight
   * passes for that alone; the request it clears is refused here, and nothing runs.
   */
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const { key } = request.params as { key?: string };
    const origin = request.headers.origin;
    let number: WebchatNumber | undefined;
    try {
      number = key ? await numberOfKey(key) : undefined;
    } catch (error) {
      // The database away: the page may read the 503 and its Retry-After, which the widget waits
      // before it tries again (a browser hides an answer without CORS headers, and Retry-After
      // unless exposed). Its preflight passes so that the request itself meets this gate again.
      if (typeof origin === 'string' && isDatabaseUnavailable(error)) {
        readableBy(reply, origin);
        if (request.method === 'OPTIONS') return;
      }
      throw error;
    }
    if (!number) throw notFound('webchat_key_not_found');
    if (typeof origin === 'string') readableBy(reply, origin);
    if (typeof origin !== 'string' || !number.origins.includes(origin)) {
      if (request.method === 'OPTIONS' && typeof origin === 'string') return;
      request.log.warn({ number_id: number.id, origin }, 'web chat request from an origin not allowed');
      throw forbidden('webchat_origin_refused');
    }
    const retryAfter = perAddress.hit(request.ip) || perKey.hit(key!);
    if (retryAfter > 0) {
      reply.header('retry-after', String(retryAfter));
      throw new AppError(429, 'webchat_rate_limited');
    }
    request.webchatNumber = number;
  });

  /** The conversation, if it is one of this number's web chats (another's is not found). */
  async function conversationOf(request: FastifyRequest, id: string): Promise<StoredSession> {
    const number = request.webchatNumber!;
    const stored = await ctx.sessions.find(id);
    const session = stored?.session;
    if (!stored || session?.provider !== 'webchat' || session.tenant_id !== number.tenant_id || session.called !== number.number) throw notFound('session_not_found');
    return stored;
  }

  /**
   * Web chats waiting for their visitor are capped per number and per client address: the key is
   * public, and one site's visitors (or one visitor) must not hold every chat the tenant may run
   * (docs/licence.md). Counted before the start, as the licence's own count is.
   */
  async function assertRoomForChat(number: WebchatNumber, address: string): Promise<void> {
    const waiting = runningSessions(ctx.db).where('provider', '=', 'webchat');
    const count = async (query: typeof waiting) => Number((await query.select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
    const onNumber = await count(waiting.where('tenant_id', '=', number.tenant_id).where('called', '=', number.number));
    if (onNumber >= ctx.config.webchatMaxOpenPerNumber) throw new AppError(429, 'webchat_number_busy', undefined, undefined, { max: ctx.config.webchatMaxOpenPerNumber });
    const fromAddress = await count(waiting.where('source_ip', '=', address));
    if (fromAddress >= ctx.config.webchatMaxOpenPerAddress) throw new AppError(429, 'webchat_address_busy', undefined, undefined, { max: ctx.config.webchatMaxOpenPerAddress });
  }

  /**
   * The widget asks only while its panel is open: each question (once the conversation is known to
   * be the number's) stamps that its customer is there, and the agents are told when it stops
   * (customer-left.ts).
   */
  const seen = async (id: string, current: WebchatConversation): Promise<WebchatConversation> => {
    await markCustomerSeen(ctx.db, id);
    return current;
  };
  const view = async (request: FastifyRequest, id: string): Promise<WebchatConversation> => conversationView(ctx.db, mediaOf(ctx), await conversationOf(request, id), waiters.typingIn(id));

  api.options(
    '/webchat/:key/*',
    {
      schema: {
        tags: ['webchat'],
        security: [],
        params: keyParams.extend({ '*': z.string() }),
        description: 'CORS preflight. A page of an origin the number does not allow passes it only to read the refusal of its request (403 webchat_origin_refused).',
      },
    },
    (_request, reply) =>
      reply
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'content-type, accept-language')
        .header('access-control-max-age', '600')
        .status(204)
        .send(),
  );

  api.get(
    '/webchat/:key/settings',
    {
      schema: {
        tags: ['webchat'],
        security: [],
        description: 'What the widget asks before it starts a conversation (the number’s pre-chat fields). See docs/channels-webchat.md.',
        params: keyParams,
        response: { 200: webchatSettingsSchema },
      },
    },
    (request) => ({ prechat: request.webchatNumber!.prechat }),
  );

  api.post(
    '/webchat/:key/conversations',
    schemaOf(
      'Starts a conversation with the number’s chat plan (rules first) and answers it, with the plan’s first replies. The body tells who the visitor is: the pre-chat fields ' +
        'the number asks (400 invalid_input when one is missing), the page’s address (of the request’s origin), and the site’s signed-in user, refused with ' +
        '403 webchat_identity_refused unless `hash` is HMAC-SHA256(id, the number’s identity key). See docs/channels-webchat.md.',
      // No body at all: nothing is said of the visitor (the widget before pre-chat fields sent none).
      { params: keyParams, body: webchatStartSchema.nullish() },
    ),
    async (request) => {
      const number = request.webchatNumber!;
      // Checked before any room is counted: a refused identity starts nothing.
      const customer = customerOf(request.body ?? {}, number, request.headers.origin!);
      await assertRoomForChat(number, request.ip);
      const route = await findWebchatNumber(ctx.db, number.id);
      const planId = route ? choosePlan(route, 'chat', new Date(), '') : null;
      if (planId === null) throw conflict('webchat_unavailable');
      // The visitor a rollout keeps on one version (docs/rollouts.md): the site's signed-in user, whose id the site signed, else the browser's own id.
      const visitorId = request.body?.visitor_id;
      const contactKey = customer?.external_id ?? (visitorId && `visitor:${visitorId}`);
      const outcome = await ctx.sessions.start({
        id: newSessionId(),
        tenant_id: number.tenant_id,
        plan_id: planId,
        channel: 'chat',
        provider: 'webchat',
        direction: 'inbound',
        caller: '',
        called: number.number,
        source_ip: request.ip,
        ...(customer && { customer }),
        ...(contactKey && { contact_key: contactKey }),
      });
      return view(request, outcome.session_id);
    },
  );

  api.get(
    '/webchat/:key/conversations/:id',
    schemaOf(
      `The conversation: its transcript, the menu's buttons, its status. With after=<revision> and wait=<seconds> (at most ${webchatLimits.waitSeconds}) ` +
        'a long poll: answers once a turn past that revision is stored (a reply the plan sends on its own), or when the wait is over.',
      { params: conversationParams, querystring: webchatPollSchema },
    ),
    async (request) => {
      const { id } = request.params;
      const { after, wait } = request.query;
      if (after === undefined || !wait) return seen(id, await view(request, id));
      // Waiting starts before the read, so that a turn stored while it reads still wakes it.
      const stop = new AbortController();
      request.raw.once('close', () => stop.abort());
      const turn = waiters.wait(id, wait * 1000, stop.signal);
      const current = await view(request, id).catch((error: unknown) => {
        stop.abort();
        throw error;
      });
      await seen(id, current);
      if (current.revision > after || current.status === 'ended') {
        stop.abort();
        return current;
      }
      await turn;
      return view(request, id);
    },
  );

  api.post(
    '/webchat/:key/conversations/:id/messages',
    schemaOf(
      'Sends the user’s message (a menu button sends its label) and answers the conversation after the plan’s turn. The message id makes a retry run nothing twice.',
      { params: conversationParams, body: webchatMessageSchema },
    ),
    async (request) => {
      const { id } = request.params;
      await conversationOf(request, id);
      // A person holds the chat: the message is theirs, not the plan's.
      const isHeld = await routeCustomerMessage(ctx, id, { text: request.body.text, external_id: `message:${request.body.id}` }, deskEvents(ctx));
      if (!isHeld) await ctx.sessions.handleTurn(id, `message:${request.body.id}`, { type: 'message', text: request.body.text }, { tenantId: request.webchatNumber!.tenant_id });
      return view(request, id);
    },
  );

  await registerVisitorFileRoute(app, ctx, { conversationOf, view });

  api.post(
    '/webchat/:key/conversations/:id/typing',
    {
      schema: {
        tags: ['webchat'],
        security: [],
        description: 'The user is typing (the widget tells it at most every few seconds): a person holding the chat sees it in the console. Nothing happens while the plan has the chat.',
        params: conversationParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await conversationOf(request, id);
      await routeCustomerTyping(ctx, id);
      return reply.status(204).send(null);
    },
  );
}
