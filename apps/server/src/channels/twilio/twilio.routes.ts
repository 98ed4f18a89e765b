/**
 * Twilio's voice webhooks (docs/channels-twilio.md): the number's voice URL and its status
 * callback. Every request is checked with the official library's `validateRequest` against the
 * tenant's auth token and the URL as Twilio called it (PUBLIC_URL + path + query) before anything
 * runs; the call is a session of the runtime (docs/sessions.md), so any instance answers any callback.
 */
import formbody from '@fastify/formbody';
import type { Action, EngineEvent } from '@voxplan/engine';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import twilio from 'twilio';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { causeOf } from '../../db/unavailable.ts';
import { AppError, forbidden } from '../../errors.ts';
import { answersFallback, settleWithin, unavailableMessage } from '../fault-fallback.ts';
import type { Params, SignedRequest } from './hook-request.ts';
import { createOutboundHooks, finalCallStatuses } from './outbound-hooks.ts';
import { createPendingEnds, type EndResult } from './pending-ends.ts';
import { choosePlan, findNumberCached } from '../../modules/numbers/number-lookup.ts';
import { findSessionTenant } from '../../modules/sessions/sessions.repository.ts';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import { systemMessage, type SystemMessageName, tenantLanguage } from '../../modules/sessions/system-messages.ts';
import { tenantIntegrations } from '../../modules/tenants/integrations.routes.ts';
import { type CallbackUrls, dialStatusOf, outcomeTwiml, systemMessageTwiml } from './twiml.ts';

export const VOICE_HOOK_PATH = '/api/v1/hooks/twilio/voice';
export const STATUS_HOOK_PATH = '/api/v1/hooks/twilio/status';

/** Where a callback comes back: which session, the revision answered, and what it answers. */
const callbackQuery = z.object({
  session: z.string().min(1).max(200).optional(),
  rev: z.coerce.number().int().nonnegative().optional(),
  // outbound: a call the plan placed (its answer, its status); amd: that call's machine detection.
  on: z.enum(['gather', 'dial', 'recording', 'outbound', 'amd']).optional(),
});

/** Our hook for a call the plan placed: `on` says what Twilio tells there (the answer, the status, the detection). */
export function outboundHookUrl(publicUrl: string, path: string, sessionId: string, on: 'outbound' | 'amd'): string {
  return `${publicUrl}${path}?${new URLSearchParams({ session: sessionId, on }).toString()}`;
}
type CallbackQuery = z.infer<typeof callbackQuery>;

/**
 * A final status that found no session on the instance it reached, told to every instance: one
 * whose start of that call still runs (or has just committed) stores it, instead of leaving the
 * session to the lost-calls sweeper. What its signature check needs travels with it.
 */
const UNMATCHED_ENDS_TOPIC = 'twilio-unmatched-ends';
interface UnmatchedEnd {
  session_id: string;
  signature: string;
  url: string;
  params: Params;
}
const isUnmatchedEnd = (message: unknown): message is UnmatchedEnd =>
  typeof message === 'object' && message !== null && typeof (message as UnmatchedEnd).session_id === 'string' && typeof (message as UnmatchedEnd).url === 'string';

/** Both hooks: Twilio's forms, no token (the signature is the credential), a callback's query. */
const hookSchema = (description: string) => ({
  schema: { tags: ['hooks'], security: [], consumes: ['application/x-www-form-urlencoded'], querystring: callbackQuery, description },
});

/**
 * The form's fields as Twilio signs them: text values (a repeated field keeps its last value).
 * Twilio posts forms only (https://www.twilio.com/docs/usage/webhooks/voice-webhooks: requests are
 * `application/x-www-form-urlencoded`); the same fields in another body (JSON) are refused with 415,
 * so that nothing but Twilio's own encoding is ever read as signed.
 */
function formParams(request: FastifyRequest): Params {
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') throw new AppError(415, 'twilio_form_required');
  const body = request.body;
  const params: Params = {};
  if (typeof body !== 'object' || body === null) return params;
  for (const [name, value] of Object.entries(body)) {
    const last: unknown = Array.isArray(value) ? value.at(-1) : value;
    if (typeof last === 'string') params[name] = last;
  }
  return params;
}

function callbackUrls(publicUrl: string): CallbackUrls {
  const url = (path: string, kind: string, sessionId: string, revision: number) =>
    `${publicUrl}${path}?${new URLSearchParams({ session: sessionId, rev: String(revision), on: kind }).toString()}`;
  return {
    voice: (kind, sessionId, revision) => url(VOICE_HOOK_PATH, kind, sessionId, revision),
    status: (kind, sessionId, revision) => url(STATUS_HOOK_PATH, kind, sessionId, revision),
  };
}

/** The engine event a voice callback carries: keys or speech (none: a timeout), or how a dial ended. */
function callbackEvent(kind: 'gather' | 'dial', params: Params): EngineEvent {
  if (kind === 'dial') return { type: 'dial_result', status: dialStatusOf(params.DialCallStatus) };
  const speech = params.SpeechResult?.trim() ?? '';
  if (speech !== '') return { type: 'speech', text: speech };
  const digits = params.Digits ?? '';
  return digits === '' ? { type: 'timeout' } : { type: 'digits', digits };
}

export async function twilioHooksPlugin(app: FastifyInstance, options: { ctx: AppContext }): Promise<void> {
  const { ctx } = options;
  // Twilio posts forms; only these routes read them.
  await app.register(formbody);
  const urls = callbackUrls(ctx.config.publicUrl);
  const deadlineMs = ctx.config.providerHookDeadlineMs;
  // The calls whose start runs on this instance now: a final status that finds no session for one waits for it.
  const startsInFlight = new Map<string, number>();
  const pendingEnds = createPendingEnds({ log: app.log, startInFlight: (sessionId) => startsInFlight.has(sessionId) });
  const stopListening = ctx.databaseAvailability?.onBack(() => void pendingEnds.flush());
  // Tried at once: stored if the start committed here, kept while it still runs here, else dropped
  // (one read per instance, for an end that no instance could match on its own).
  const stopUnmatched = ctx.bus.subscribe(UNMATCHED_ENDS_TOPIC, (message) => {
    if (!isUnmatchedEnd(message)) return;
    const signed = { request: { headers: { 'x-twilio-signature': message.signature }, url: message.url, log: app.log }, params: message.params };
    pendingEnds.add({ sessionId: message.session_id, apply: () => storeEnd(message.session_id, signed) });
    void pendingEnds.flush();
  });
  app.addHook('onClose', async () => {
    stopListening?.();
    stopUnmatched();
    pendingEnds.close();
  });

  /**
   * Refuses (403, logged) a request whose X-Twilio-Signature does not sign this URL and form with
   * the tenant's auth token; a tenant without Twilio credentials can sign nothing. A signed request
   * must also name the tenant's own account (AccountSid): a token signs for one account only.
   */
  async function checkSignature(request: SignedRequest, tenantId: number, params: Params): Promise<void> {
    const signature = request.headers['x-twilio-signature'];
    const { twilio_token: token, twilio_sid: account } = await tenantIntegrations(ctx, tenantId);
    const url = `${ctx.config.publicUrl}${request.url}`;
    const reason =
      typeof signature !== 'string' || signature === ''
        ? 'missing signature'
        : !token
          ? 'tenant without a Twilio auth token'
          : twilio.validateRequest(token, signature, url, params)
            ? undefined
            : 'signature does not match';
    if (reason !== undefined) {
      request.log.warn({ url, tenant_id: tenantId, call_sid: params.CallSid, reason }, 'Twilio webhook refused');
      throw forbidden('invalid_twilio_signature');
    }
    if (params.AccountSid !== account) {
      request.log.warn({ url, tenant_id: tenantId, call_sid: params.CallSid, account_sid: params.AccountSid }, 'Twilio webhook for another account refused');
      throw forbidden('twilio_account_mismatch');
    }
  }

  const sendTwiml = (reply: FastifyReply, twiml: string) => reply.type('text/xml; charset=utf-8').send(twiml);

  /** The tenant a request acts for: its session's when it names one, else the called number's. */
  async function tenantOf(query: CallbackQuery, params: Params): Promise<number | undefined> {
    const sessionId = query.session ?? params.CallSid;
    const tenantId = sessionId ? await findSessionTenant(ctx.db, sessionId) : undefined;
    if (tenantId !== undefined) return tenantId;
    if (query.session !== undefined) return undefined;
    const route = params.To ? await findNumberCached(ctx, params.To) : undefined;
    return route?.provider === 'twilio' ? route.tenant_id : undefined;
  }

  /**
   * A first turn that failed before the caller heard anything (the plan never published, gone, or no
   * longer valid): rather than silence and a hang-up, the caller hears that the service is unavailable.
   */
  const failedSilently = (actions: readonly Action[]) =>
    !actions.some((action) => action.type === 'say' || action.type === 'play') && actions.some((action) => action.type === 'hangup' && action.cause === 'engine_error');

  /** A system message in the tenant's language (the server's when no tenant is known), then the hang-up. */
  async function saySystemMessage(name: SystemMessageName, tenantId: number | undefined): Promise<string> {
    return systemMessageTwiml(systemMessage(name, await tenantLanguage(ctx, tenantId)));
  }

  async function startCall(request: FastifyRequest, params: Params): Promise<string> {
    // PostgreSQL: one catch-up of the read cache for the number, the signature and the start (ReadCache.catchUp), not a ping each.
    const catchingUp = ctx.readCache.catchUp();
    const caughtUp = catchingUp && (await catchingUp);
    const route = params.To ? await ctx.readCache.atOnce(caughtUp, () => findNumberCached(ctx, params.To!)) : undefined;
    if (!route || route.provider !== 'twilio') {
      request.log.info({ called: params.To, call_sid: params.CallSid }, 'Twilio call to a number nobody has');
      return saySystemMessage('not_in_service', undefined);
    }
    await ctx.readCache.atOnce(caughtUp, () => checkSignature(request, route.tenant_id, params));
    const caller = params.From ?? '';
    const planId = choosePlan(route, 'voice', new Date(), caller);
    if (planId === null || !params.CallSid) {
      request.log.warn({ number_id: route.id, call_sid: params.CallSid }, 'Twilio call to a number without a voice plan');
      return saySystemMessage('not_in_service', route.tenant_id);
    }
    try {
      const outcome = await ctx.sessions.start({
        id: params.CallSid,
        tenant_id: route.tenant_id,
        plan_id: planId,
        channel: 'voice',
        provider: 'twilio',
        direction: 'inbound',
        caller,
        called: params.To ?? '',
        source_ip: request.ip,
      }, catchingUp && { caughtUp: catchingUp });
      if (failedSilently(outcome.actions)) return saySystemMessage('plan_cannot_start', route.tenant_id);
      return outcomeTwiml(outcome, urls);
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode >= 500 || error.code === 'session_busy') throw error;
      // Every line the licence grants is in use: the number exists, so the caller hears that it is busy.
      if (error.code === 'license_sessions_limit_reached') {
        request.log.warn({ number_id: route.id, call_sid: params.CallSid, code: error.code, max: error.params?.max }, 'Twilio call refused by the licence');
        return saySystemMessage('lines_busy', route.tenant_id);
      }
      // Another tenant's (or provider's) call already has this CallSid: nothing of it may answer here.
      if (error.code === 'session_id_taken') return saySystemMessage('not_in_service', route.tenant_id);
      // A plan never published or gone: the caller hears so rather than Twilio's application error.
      request.log.warn({ number_id: route.id, plan_id: planId, code: error.code }, 'Twilio call whose plan cannot start');
      return saySystemMessage('plan_cannot_start', route.tenant_id);
    }
  }

  /**
   * A callback's turn, its signature checked with the tenant of the session the turn reads (one
   * read for both, not a read of the tenant first). Undefined when no session has that id.
   */
  async function signedTurn(request: SignedRequest, params: Params, sessionId: string, eventId: string, event: EngineEvent): Promise<TurnOutcome | undefined> {
    try {
      return await ctx.sessions.handleTurn(sessionId, eventId, event, { authorize: (tenantId) => checkSignature(request, tenantId, params) });
    } catch (error) {
      if (error instanceof AppError && error.code === 'session_not_found') return undefined;
      throw error;
    }
  }

  /** The end of a call ('call-end', idempotent): signed by the status callback that told it, or this instance's own (a call it hung up on). */
  async function storeEnd(sessionId: string, signed?: { request: SignedRequest; params: Params }): Promise<EndResult> {
    try {
      const outcome = await ctx.sessions.handleTurn(sessionId, 'call-end', { type: 'hangup' }, signed ? { authorize: (tenantId) => checkSignature(signed.request, tenantId, signed.params) } : {});
      if (!outcome.duplicate && signed === undefined) app.log.info({ session: sessionId }, 'a call answered "not available" after its deadline was ended');
      return 'stored';
    } catch (error) {
      if (error instanceof AppError && error.code === 'session_not_found') return 'no-session';
      // A forged end is refused for good, not tried again.
      if (error instanceof AppError && error.statusCode === 403) return 'no-session';
      throw error;
    }
  }

  /** What a status callback's signature check needs, kept apart from the request (which is answered and gone). */
  const signedCopy = (request: SignedRequest, params: Params) => ({
    request: { headers: { 'x-twilio-signature': request.headers['x-twilio-signature'] }, url: request.url, log: request.log },
    params,
  });

  /** A start, known to be running here until it settles; then the ends waiting for it are tried. */
  function trackStart(callSid: string | undefined, work: Promise<string>): Promise<string> {
    if (!callSid) return work;
    startsInFlight.set(callSid, (startsInFlight.get(callSid) ?? 0) + 1);
    const done = () => {
      const left = (startsInFlight.get(callSid) ?? 1) - 1;
      if (left > 0) startsInFlight.set(callSid, left);
      else startsInFlight.delete(callSid);
      if (pendingEnds.size > 0) void pendingEnds.flush();
    };
    void work.then(done, done);
    return work;
  }

  /**
   * The voice webhook's answer within the deadline. A failure of the server's own (the database
   * away) or a turn past the deadline: the caller hears "not available right now" and the call
   * hangs up; a turn that still finishes afterwards has its session ended, as the caller is gone.
   */
  async function boundedVoiceAnswer(request: FastifyRequest, query: CallbackQuery, params: Params, work: Promise<string>): Promise<string> {
    const settled = await settleWithin(work, deadlineMs);
    if (settled.state === 'done') return settled.value;
    if (settled.state === 'failed' && !answersFallback(settled.error)) throw settled.error;
    const sessionId = query.session ?? params.CallSid;
    if (settled.state === 'late' && sessionId) {
      const end = () => pendingEnds.add({ sessionId, apply: () => storeEnd(sessionId) });
      void work.then(end, end);
    }
    const cause = settled.state === 'late' ? `past the deadline of ${deadlineMs} ms` : causeOf(settled.error);
    request.log.warn({ call_sid: params.CallSid, session: query.session, on: query.on, cause }, `Twilio voice webhook answered "not available": ${cause}`);
    const message = await unavailableMessage(ctx, () => tenantOf(query, params));
    return systemMessageTwiml(message);
  }

  const outbound = createOutboundHooks({
    ctx,
    urls,
    checkSignature,
    signedTurn,
    saySystemMessage,
    failedSilently,
    endAfterStart: (sessionId, request, params) => {
      // Its start still runs here: the end waits for it.
      if (!startsInFlight.has(sessionId)) return;
      pendingEnds.add({ sessionId, apply: () => storeEnd(sessionId, signedCopy(request, params)) });
    },
  });

  app.post(
    '/hooks/twilio/voice',
    hookSchema(
      "Twilio's voice webhook (the number's voice URL), and the action URL of the gathers and dials it answers (session, rev, on). " +
        'Form fields as Twilio sends them (CallSid, From, To, Digits, SpeechResult, DialCallStatus…); X-Twilio-Signature must sign ' +
        'PUBLIC_URL + path + query with the tenant’s auth token, else 403 invalid_twilio_signature; AccountSid must be the tenant’s account, else 403 ' +
        'twilio_account_mismatch; a body other than a form answers 415 twilio_form_required. A CallSid another tenant’s session has answers ' +
        '"not in service". With session and on=outbound: the callee of a call the plan placed answered, and its plan starts (docs/outbound.md). ' +
        'Answers TwiML. See docs/channels-twilio.md.',
    ),
    async (request, reply) => {
      const query = request.query as CallbackQuery;
      const params = formParams(request);
      if (query.session === undefined) return sendTwiml(reply, await boundedVoiceAnswer(request, query, params, trackStart(params.CallSid, startCall(request, params))));
      const session = query.session;
      if (query.on === 'outbound') return sendTwiml(reply, await boundedVoiceAnswer(request, query, params, trackStart(session, outbound.answer(request, session, params))));
      const answer = async () => {
        const outcome =
          query.rev !== undefined && (query.on === 'gather' || query.on === 'dial')
            ? await signedTurn(request, params, session, `${query.on}:${query.rev}`, callbackEvent(query.on, params))
            : undefined;
        if (!outcome) {
          request.log.warn({ session, on: query.on }, 'Twilio callback for no known session');
          return saySystemMessage('not_in_service', await tenantOf(query, params));
        }
        return outcomeTwiml(outcome, urls);
      };
      return sendTwiml(reply, await boundedVoiceAnswer(request, query, params, answer()));
    },
  );

  app.post(
    '/hooks/twilio/status',
    hookSchema(
      "Twilio's status callback (CallStatus: a final one ends the session and completes its report), the recording callback of " +
        'a record action (on=recording: the recording reaches the session as recording_ready), and a placed call’s status (on=outbound: ' +
        'busy, no-answer, failed, canceled end it unanswered) and machine detection (on=amd: AnsweredBy). Signed as the voice webhook; answers 204.',
    ),
    async (request, reply) => {
      const query = request.query as CallbackQuery;
      const params = formParams(request);
      const sessionId = query.session ?? params.CallSid;
      const isEnd = query.on !== 'recording' && params.CallStatus !== undefined && finalCallStatuses.has(params.CallStatus);
      const settled = await settleWithin(storeStatus(request, query, params), deadlineMs);
      if (settled.state === 'failed' && !answersFallback(settled.error)) throw settled.error;
      if (settled.state !== 'done') {
        // Twilio would not send it again (pending-ends.ts): kept, and stored once the database answers.
        const cause = settled.state === 'late' ? `past the deadline of ${deadlineMs} ms` : causeOf(settled.error);
        const kept = Boolean(isEnd && sessionId) && query.on !== 'amd';
        if (kept && sessionId) {
          const signed = signedCopy(request, params);
          // A call the plan placed ends through its own path: it may have no session (nobody answered).
          const apply = query.session !== undefined && query.on === 'outbound' ? () => outbound.storeKeptEnd(signed.request, sessionId, signed.params) : () => storeEnd(sessionId, signed);
          pendingEnds.add({ sessionId, apply });
        }
        request.log.warn({ call_sid: params.CallSid, call_status: params.CallStatus, kept, cause }, `Twilio status callback not stored yet: ${cause}`);
      }
      return reply.status(204).send();
    },
  );

  /** A status or recording callback stored: the recording reaches its session, a final status ends it. */
  async function storeStatus(request: FastifyRequest, query: CallbackQuery, params: Params): Promise<void> {
    if (query.session !== undefined && (query.on === 'outbound' || query.on === 'amd')) {
      await outbound.storeStatus(request, query.session, query.on, params);
      return;
    }
    const sessionId = query.session ?? params.CallSid;
    const isRecording = query.on === 'recording' && params.RecordingUrl && params.RecordingSid;
    const isEnd = query.on !== 'recording' && params.CallStatus !== undefined && finalCallStatuses.has(params.CallStatus);
    if (sessionId && isRecording) {
      const duration = Number(params.RecordingDuration);
      const event: EngineEvent = { type: 'recording_ready', url: params.RecordingUrl!, duration_s: Number.isFinite(duration) ? duration : 0 };
      if (await signedTurn(request, params, sessionId, `recording:${params.RecordingSid}`, event)) return;
    } else if (sessionId && isEnd) {
      // Ignored by a session a hangup block already ended; its report stays as stored.
      if (await signedTurn(request, params, sessionId, 'call-end', { type: 'hangup' })) return;
      // Its start still runs here (slow to read the number, say): the end waits for it rather than leave it waiting.
      if (startsInFlight.has(sessionId)) {
        request.log.info({ call_sid: params.CallSid }, 'Twilio end of a call whose start is still running: kept until it is stored');
        pendingEnds.add({ sessionId, apply: () => storeEnd(sessionId, signedCopy(request, params)) });
        return;
      }
    }
    // No turn, or no session for it (a call refused before it was stored: the licence, a plan that cannot start):
    // still checked against the number's tenant. Twilio records any 4xx of a callback as an error in the customer's console: a signed callback is answered 204.
    const tenantId = await tenantOf(query, params);
    if (tenantId === undefined || !sessionId) {
      request.log.info({ call_sid: params.CallSid }, 'Twilio status of a call with no session');
      return;
    }
    await checkSignature(request, tenantId, params);
    if (isEnd) {
      request.log.info({ call_sid: params.CallSid, call_status: params.CallStatus }, 'Twilio end of a call that has no session: told to the other instances');
      // Its start may run on another instance (Twilio's callbacks reach any of them).
      const signature = request.headers['x-twilio-signature'];
      ctx.bus.publish(UNMATCHED_ENDS_TOPIC, { session_id: sessionId, signature: typeof signature === 'string' ? signature : '', url: request.url, params } satisfies UnmatchedEnd);
    }
  }
}
