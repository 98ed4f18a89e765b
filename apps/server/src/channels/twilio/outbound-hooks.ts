/**
 * What Twilio tells of a call the plan placed (docs/outbound.md, docs/channels-twilio.md
 * "Outbound calls"): the answer (the voice URL with `on=outbound`), the call's status (the status
 * callback with `on=outbound`) and its asynchronous machine detection (`on=amd`). Each is signed
 * with the tenant of the call, may come twice, and counts once.
 */
import type { Action, EngineEvent } from '@voxplan/engine';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { findCall } from '../../modules/outbound-calls/outbound-calls.repository.ts';
import type { AnsweredBy, DialResult } from '../../modules/outbound-calls/outbound-calls.types.ts';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import type { SystemMessageName } from '../../modules/sessions/system-messages.ts';
import type { EndResult } from './pending-ends.ts';
import type { Params, SignedRequest } from './hook-request.ts';
import { type CallbackUrls, outcomeTwiml } from './twiml.ts';

/** The call's last states (CallStatus): the status callback then ends the session. */
export const finalCallStatuses = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

/**
 * Twilio's `AnsweredBy` (https://www.twilio.com/docs/voice/answering-machine-detection): a person,
 * a machine (its greeting's start or end, a fax), or not known.
 */
export function answeredByOf(value: string | undefined): AnsweredBy | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'human') return 'human';
  if (value.startsWith('machine_') || value === 'fax') return 'machine';
  return 'unknown';
}

/** How a placed call that no session took ended (its final CallStatus), as a dial status. */
const unansweredStatuses: Record<string, DialResult['dial_status']> = {
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
  canceled: 'cancel',
  // Answered, but the plan never started (the voice webhook was not reached).
  completed: 'failed',
};

/** What the hooks plugin lends: its signature check, its turns, its system messages. */
export interface OutboundHookTools {
  ctx: AppContext;
  urls: CallbackUrls;
  checkSignature(request: SignedRequest, tenantId: number, params: Params): Promise<void>;
  signedTurn(request: SignedRequest, params: Params, sessionId: string, eventId: string, event: EngineEvent): Promise<TurnOutcome | undefined>;
  saySystemMessage(name: SystemMessageName, tenantId: number | undefined): Promise<string>;
  failedSilently(actions: readonly Action[]): boolean;
  /** A final status found no session for an answered call: it may still be starting here. */
  endAfterStart(sessionId: string, request: SignedRequest, params: Params): void;
}

export function createOutboundHooks(tools: OutboundHookTools) {
  const { ctx, urls, checkSignature, signedTurn, saySystemMessage, failedSilently } = tools;

  /**
   * The callee answered: the session starts (docs/outbound.md), signed with the tenant of the
   * call, and its first turn is the TwiML. A synchronous detection's `AnsweredBy` (none with
   * AsyncAmd) is known before the first block.
   */
  async function answer(request: FastifyRequest, sessionId: string, params: Params): Promise<string> {
    try {
      const answeredBy = answeredByOf(params.AnsweredBy);
      const outcome = await ctx.outboundCalls.answered(sessionId, {
        ...(params.CallSid && { provider_call_id: params.CallSid }),
        ...(answeredBy && { answered_by: answeredBy }),
        source_ip: request.ip,
        authorize: (tenantId) => checkSignature(request, tenantId, params),
      });
      if (failedSilently(outcome.actions)) return saySystemMessage('plan_cannot_start', (await findCall(ctx.db, sessionId))?.tenant_id);
      return outcomeTwiml(outcome, urls);
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode >= 500 || error.statusCode === 403 || error.code === 'session_busy') throw error;
      const tenantId = (await findCall(ctx.db, sessionId))?.tenant_id;
      request.log.warn({ session: sessionId, call_sid: params.CallSid, code: error.code }, 'Twilio outbound call whose plan cannot start');
      if (error.code === 'session_not_found') return saySystemMessage('not_in_service', tenantId);
      if (error.code === 'license_sessions_limit_reached') return saySystemMessage('lines_busy', tenantId);
      return saySystemMessage('plan_cannot_start', tenantId);
    }
  }

  /**
   * The call's status (on=outbound) or its machine detection (on=amd). A final status of an
   * answered call ends its session as an inbound call's does; of one nobody answered, it is the
   * dial's result. 'no-session' when no call has that session.
   */
  async function storeStatus(request: SignedRequest, sessionId: string, on: 'outbound' | 'amd', params: Params): Promise<EndResult> {
    const call = await findCall(ctx.db, sessionId);
    if (!call) {
      request.log.info({ session: sessionId, call_sid: params.CallSid }, 'Twilio status of a placed call nobody has');
      return 'no-session';
    }
    await checkSignature(request, call.tenant_id, params);
    if (on === 'amd') {
      await ctx.outboundCalls.machineResult(sessionId, answeredByOf(params.AnsweredBy) ?? 'unknown');
      return 'stored';
    }
    const status = params.CallStatus;
    if (status === undefined || !finalCallStatuses.has(status)) return 'stored';
    if (call.dial_status === 'answer') {
      const outcome = await signedTurn(request, params, sessionId, 'call-end', { type: 'hangup' });
      if (!outcome) tools.endAfterStart(sessionId, request, params);
      return 'stored';
    }
    const answeredBy = answeredByOf(params.AnsweredBy);
    await ctx.outboundCalls.dialResult(sessionId, {
      dial_status: unansweredStatuses[status] ?? 'failed',
      ...(params.CallSid && { provider_call_id: params.CallSid }),
      ...(answeredBy && { answered_by: answeredBy }),
    });
    return 'stored';
  }

  /**
   * A final status kept while the database was away (pending-ends.ts), stored when it is back: the
   * call's own path, as it came, so that a call nobody answered ends with its dial status and its
   * campaign hears it; an inbound end would find no session for it and leave it to the stale sweep.
   */
  async function storeKeptEnd(request: SignedRequest, sessionId: string, params: Params): Promise<EndResult> {
    try {
      return await storeStatus(request, sessionId, 'outbound', params);
    } catch (error) {
      // A forged end is refused for good, not tried again.
      if (error instanceof AppError && error.statusCode === 403) return 'no-session';
      throw error;
    }
  }

  return { answer, storeStatus, storeKeptEnd };
}
