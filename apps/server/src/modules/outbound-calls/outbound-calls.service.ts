/**
 * The outbound core (docs/outbound.md): places a call through the number's channel, and turns what
 * the channel learns back (unanswered, answered, machine detection) into the session, its report
 * and the outcome's three reports (GET, the plan webhook, `status_url`).
 */
import type { AnsweredBy, ReportDialStatus } from '@voxplan/contracts';
import type { CallReport, Session } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { chosenVersion } from '../sessions/plan-loader.ts';
import { nowIso } from '../../lib/time.ts';
import { isOnDoNotCall } from '../do-not-call/do-not-call.service.ts';
import { enqueuePlanEvent } from '../plan-webhook/plan-webhook.service.ts';
import { countRunningLike } from '../sessions/sessions.repository.ts';
import { presentReport, saveReport } from '../sessions/call-reports.repository.ts';
import type { SessionEvents } from '../sessions/session-events.ts';
import { isWebUrl } from '../sessions/plan-webhook-events.ts';
import { newSessionId } from '../sessions/sessions.service.ts';
import {
  countPendingCalls,
  deleteQueuedCall,
  pendingCallsBefore,
  endAnswered,
  endUnanswered,
  findCall,
  insertCallUnlessInCall,
  markAnswered,
  markDialing,
  type OutboundCallRow,
  setAnsweredBy,
} from './outbound-calls.repository.ts';
import type { OutboundCalls, OutboundOutcome } from './outbound-calls.types.ts';
import { createChatOpenings } from './outbound-chats.ts';

export const DEFAULT_RING_TIMEOUT_S = 30;
export const MAX_RING_TIMEOUT_S = 120;
/** A call still queued this long was never handed over: the process that stored it died first. */
const QUEUED_LOST_MS = 2 * 60_000;
/** A call still ringing this long past its ring timeout: the provider's end was lost. */
const DIALING_LOST_MS = 15 * 60_000;

/** The webhook setting of a published version of the plan: the plan webhook of an unanswered call. */
async function planWebhookOf(db: Kysely<Database>, tenantId: number, planId: number, version: number): Promise<string> {
  const row = await db
    .selectFrom('visual_plan_versions')
    .select('document')
    .where('tenant_id', '=', tenantId)
    .where('plan_id', '=', planId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!row) return '';
  const settings = (JSON.parse(row.document) as { settings?: { webhook?: unknown } }).settings;
  return typeof settings?.webhook === 'string' ? settings.webhook : '';
}

const answeredByOf = (value: string | null): AnsweredBy | null => (value === 'human' || value === 'machine' || value === 'unknown' ? value : null);

function outcomeOf(row: OutboundCallRow, ended: boolean): OutboundOutcome {
  return {
    session_id: row.session_id,
    tenant_id: row.tenant_id,
    campaign_id: row.campaign_id,
    dial_status: (row.dial_status ?? 'failed') as ReportDialStatus,
    answered_by: answeredByOf(row.answered_by),
    ended,
  };
}

/** The report of a call nobody answered: the plan never ran, so it holds the request and the dial's end. */
function unansweredReport(row: OutboundCallRow, dialStatus: ReportDialStatus, now: string): CallReport {
  return {
    session_id: row.session_id,
    tenant_id: row.tenant_id,
    plan_id: row.plan_id,
    plan_name: row.plan_name,
    plan_version: row.plan_version,
    channel: 'voice',
    provider: row.provider as CallReport['provider'],
    direction: 'outbound',
    caller: row.caller,
    called: row.called,
    source_ip: null,
    protocol: null,
    hangup_cause: dialStatus === 'busy' ? 'busy' : null,
    disposition: 'missed',
    dial_status: dialStatus,
    failure: null,
    started_at: row.created_time,
    ended_at: now,
    variables: { ...(JSON.parse(row.variables) as Record<string, string>), ...(row.answered_by && { answered_by: row.answered_by }) },
    last_node: null,
    nodes: [],
    pressed_digits: [],
    duration_s: Math.max(0, Math.round((Date.parse(now) - Date.parse(row.created_time)) / 1000)),
    goal: null,
    recording: null,
  };
}

/** What `status_url` receives as `data` (contracts' outboundCallOutcomeSchema). */
const outcomePayload = (row: OutboundCallRow, report: unknown) => ({
  session_id: row.session_id,
  campaign_id: row.campaign_id,
  from: row.caller,
  to: row.called,
  dial_status: row.dial_status,
  answered_by: answeredByOf(row.answered_by),
  report,
});

/** Queues the outcome for `status_url`, in the transaction that ended the call. */
async function enqueueStatus(trx: Kysely<Database>, row: OutboundCallRow, report: unknown): Promise<void> {
  if (!row.status_url) return;
  await enqueuePlanEvent(trx, { tenantId: row.tenant_id, planId: row.plan_id, url: row.status_url, event: 'outbound_call.ended', payload: outcomePayload(row, report) });
}

export interface OutboundCore extends OutboundCalls {
  /** The session hooks that end an answered call with its session (bootstrap composes them with the plan webhook's). */
  sessionEvents: SessionEvents;
  /** Told by the session runtime once a session's end is committed. */
  sessionEnded(session: Session): void;
}

/**
 * `context` answers the app's context when a call needs it: the core is made before the session
 * runtime (whose end hooks it gives) and the context (which holds it) exist.
 */
export function createOutboundCalls(context: () => AppContext, options: { log?: (message: string) => void } = {}): OutboundCore {
  const log = options.log ?? (() => {});
  const listeners: Array<(outcome: OutboundOutcome) => Promise<void>> = [];
  /** Outcomes of ends stored in a turn's transaction, told once that turn is committed. */
  const endedInTurn = new Map<string, OutboundOutcome>();

  function tell(outcome: OutboundOutcome): void {
    for (const listener of listeners) {
      void listener(outcome).catch((error: unknown) => log(`an outbound outcome listener failed for session ${outcome.session_id}: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  async function place(request: Parameters<OutboundCalls['place']>[0]): Promise<{ session_id: string }> {
    const ctx = context();
    const { db } = ctx;
    const number = await db
      .selectFrom('numbers')
      .select(['id', 'provider', 'voice_plan_id', 'chat_plan_id'])
      .where('tenant_id', '=', request.tenant_id)
      .where('number', '=', request.from)
      .executeTakeFirst();
    if (!number) throw badRequest('outbound_number_not_found', [{ path: 'from', message: `${request.from} is not one of this tenant's numbers` }]);
    const dialer = ctx.channels.get(number.provider)?.dial;
    if (!dialer) throw badRequest('outbound_number_cannot_call', [{ path: 'from', message: `a ${number.provider} number cannot place calls` }]);
    // A messaging channel's conversation runs the number's chat plan, a call its voice plan.
    const planId = request.plan_id ?? (dialer.chat ? number.chat_plan_id : number.voice_plan_id);
    if (planId === null) throw badRequest('outbound_no_plan', [{ path: 'plan_id', message: `${request.from} has no ${dialer.chat ? 'chat' : 'voice'} plan; name one` }]);
    const plan = await db
      .selectFrom('visual_plans')
      .select(['id', 'name', 'version', 'published_version', 'rollout_version', 'rollout_share', 'rollout_pinned'])
      .where('id', '=', planId)
      .where('tenant_id', '=', request.tenant_id)
      .executeTakeFirst();
    if (!plan) throw badRequest('outbound_no_plan', [{ path: 'plan_id', message: `plan ${planId} is not one of this tenant's plans` }]);
    if (plan.published_version === null) throw badRequest('plan_not_published', [{ path: 'plan_id', message: `${plan.name} has no published version` }]);
    if (await isOnDoNotCall(db, request.tenant_id, request.to)) {
      throw new AppError(422, 'outbound_do_not_call', [{ path: 'to', message: `${request.to} is on the do-not-call list` }]);
    }
    if (dialer.chat?.reach) {
      const reach = await dialer.chat.reach(ctx, number.id);
      if (reach.limit !== null && reach.reached >= reach.limit) {
        const detail = `${request.from} reached ${reach.reached} of its ${reach.limit} customers in 24 hours`;
        throw new AppError(429, 'whatsapp_daily_limit_reached', [{ path: 'from', message: detail }], undefined, { reached: reach.reached, limit: reach.limit, frees_at: reach.frees_at ?? '' });
      }
    }
    const ringTimeout = Math.min(Math.max(Math.round(request.ring_timeout_s ?? DEFAULT_RING_TIMEOUT_S), 5), MAX_RING_TIMEOUT_S);
    // A ringing call becomes a session once answered: the licence counts it from now on.
    const running = (await countRunningLike(db, { tenant_id: request.tenant_id, provider: number.provider })) + (await countPendingCalls(db));
    await ctx.license.admitSession({ tenant_id: request.tenant_id, provider: number.provider }, running);
    const sessionId = newSessionId();
    const now = nowIso();
    const variables = { ...request.variables };
    // The server's own: the detection sets it.
    delete variables.answered_by;
    const stored = await insertCallUnlessInCall(db, {
      session_id: sessionId,
      tenant_id: request.tenant_id,
      number_id: number.id,
      provider: number.provider,
      plan_id: plan.id,
      // The version a staged rollout chooses for the called number (docs/rollouts.md): a call nobody answers is reported on it too.
      plan_version: chosenVersion(plan.id, plan, request.to) ?? plan.published_version,
      plan_name: plan.name,
      caller: request.from,
      called: request.to,
      variables: JSON.stringify(variables),
      machine_detection: request.machine_detection ? 1 : 0,
      ring_timeout_s: ringTimeout,
      status_url: request.status_url ?? null,
      campaign_id: request.campaign_id ?? null,
      state: 'queued',
      dial_status: null,
      answered_by: null,
      provider_call_id: null,
      created_time: now,
      updated_time: now,
      ended_time: null,
    });
    // One call to a number at a time, whoever places it (issue 38, "No double calls").
    if (!stored) throw new AppError(409, 'outbound_number_in_call', [{ path: 'to', message: `${request.to} already has a call queued, ringing or in progress` }]);
    let placed: { provider_call_id: string };
    try {
      placed = await dialer.place(ctx, {
        session_id: sessionId,
        tenant_id: request.tenant_id,
        from: request.from,
        to: request.to,
        machine_detection: request.machine_detection,
        ring_timeout_s: ringTimeout,
      });
    } catch (error) {
      // Refused: nothing of the call is kept.
      await deleteQueuedCall(db, sessionId);
      if (error instanceof AppError) throw error;
      log(`placing outbound call ${sessionId} through ${number.provider} failed: ${error instanceof Error ? error.message : String(error)}`);
      throw new AppError(502, 'outbound_provider_unreachable');
    }
    await markDialing(db, sessionId, placed.provider_call_id, nowIso());
    if (dialer.chat) {
      const row = await findCall(db, sessionId);
      if (row) await chats.open(row, dialer);
    }
    return { session_id: sessionId };
  }

  async function dialResult(sessionId: string, result: Parameters<OutboundCalls['dialResult']>[1]): Promise<void> {
    const ctx = context();
    const now = nowIso();
    const ended = await ctx.db.transaction().execute(async (trx) => {
      const row = await endUnanswered(trx, sessionId, { dial_status: result.dial_status, answered_by: result.answered_by ?? null, provider_call_id: result.provider_call_id ?? null }, now);
      // Told before (a provider's retry), or answered: nothing changes.
      if (!row) return undefined;
      const stored = await saveReport(trx, unansweredReport(row, result.dial_status, now), false, now);
      if (row.campaign_id !== null) await trx.updateTable('call_reports').set({ campaign_id: row.campaign_id }).where('session_id', '=', sessionId).execute();
      const report = { ...stored, campaign_id: row.campaign_id };
      const webhook = await planWebhookOf(trx, row.tenant_id, row.plan_id, row.plan_version);
      if (isWebUrl(webhook)) {
        const session = { session_id: sessionId, channel: 'voice', provider: row.provider, direction: 'outbound', caller: row.caller, called: row.called, protocol: null };
        await enqueuePlanEvent(trx, {
          tenantId: row.tenant_id,
          planId: row.plan_id,
          url: webhook,
          event: 'session.ended',
          payload: { ...session, started_at: row.created_time, plan_version: row.plan_version, dial_status: result.dial_status, report },
        });
      }
      await enqueueStatus(trx, row, report);
      return row;
    });
    if (ended) tell(outcomeOf(ended, true));
  }

  async function answered(sessionId: string, answer: Parameters<OutboundCalls['answered']>[1]) {
    const ctx = context();
    const row = await findCall(ctx.db, sessionId);
    if (!row) throw notFound('session_not_found');
    await answer.authorize?.(row.tenant_id);
    if (row.state === 'ended' && row.dial_status !== 'answer') throw notFound('session_not_found');
    const answeredBy = answer.answered_by ?? answeredByOf(row.answered_by) ?? (row.machine_detection === 1 ? 'unknown' : null);
    const isFirst = await markAnswered(ctx.db, sessionId, { answered_by: answeredBy, provider_call_id: answer.provider_call_id ?? null }, nowIso());
    try {
      const outcome = await ctx.sessions.start({
        id: sessionId,
        tenant_id: row.tenant_id,
        plan_id: row.plan_id,
        channel: 'voice',
        provider: row.provider as Session['provider'],
        direction: 'outbound',
        caller: row.caller,
        called: row.called,
        source_ip: answer.source_ip ?? null,
        variables: { ...(JSON.parse(row.variables) as Record<string, string>), ...(answeredBy !== null && { answered_by: answeredBy }) },
      });
      if (isFirst && outcome.status !== 'ended' && !outcome.duplicate) {
        const stored = await findCall(ctx.db, sessionId);
        if (stored) tell(outcomeOf(stored, false));
      }
      return outcome;
    } catch (error) {
      // The plan cannot start (the licence, a plan gone): the call ends as failed, with its report.
      if (isFirst && error instanceof AppError && error.statusCode < 500) {
        await ctx.db.updateTable('outbound_calls').set({ state: 'dialing' }).where('session_id', '=', sessionId).where('state', '=', 'in_progress').execute();
        await dialResult(sessionId, { dial_status: 'failed' });
      }
      throw error;
    }
  }

  async function machineResult(sessionId: string, answeredBy: AnsweredBy): Promise<void> {
    const ctx = context();
    const row = await setAnsweredBy(ctx.db, sessionId, answeredBy, nowIso());
    if (!row) throw notFound('session_not_found');
    // Not answered yet: the start reads it from the row.
    if (row.state !== 'in_progress') return;
    try {
      await ctx.sessions.handleTurn(sessionId, 'answered-by', { type: 'answered_by', answered_by: answeredBy });
    } catch (error) {
      // The start is still being stored on another request: it read the row after the update above, or will.
      if (!(error instanceof AppError && error.code === 'session_not_found')) throw error;
    }
  }

  async function sweepStale(now = new Date()): Promise<string[]> {
    const ctx = context();
    const ended: string[] = [];
    const candidates = await pendingCallsBefore(ctx.db, new Date(now.getTime() - QUEUED_LOST_MS).toISOString(), 200);
    for (const call of candidates) {
      const lostAt = call.state === 'queued' ? 0 : Date.parse(call.updated_time) + call.ring_timeout_s * 1000 + DIALING_LOST_MS;
      if (lostAt > now.getTime()) continue;
      await dialResult(call.session_id, { dial_status: 'failed' });
      ended.push(call.session_id);
    }
    return ended;
  }

  /** Ends a call whose session ended while its chat's opening was sent, with its `status_url` outcome. */
  async function endCall(sessionId: string, dialStatus: 'answer' | 'failed'): Promise<OutboundCallRow | undefined> {
    const { db } = context();
    const now = nowIso();
    return db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('outbound_calls')
        .set({ state: 'ended', dial_status: dialStatus, updated_time: now, ended_time: now })
        .where('session_id', '=', sessionId)
        .where('state', '<>', 'ended')
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      if (row.campaign_id !== null) await trx.updateTable('call_reports').set({ campaign_id: row.campaign_id }).where('session_id', '=', sessionId).execute();
      const report = await trx.selectFrom('call_reports').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
      await enqueueStatus(trx, row, report ? { ...presentReport(report), dial_status: dialStatus, campaign_id: row.campaign_id } : null);
      return row;
    });
  }

  const chats = createChatOpenings({
    context,
    tell,
    outcomeOf,
    failUnstarted: (sessionId) => dialResult(sessionId, { dial_status: 'failed' }),
    endCall,
    log,
  });

  const sessionEvents: SessionEvents = {
    // An outbound session's end is written with its call's: the hooks need the turn's transaction.
    needsTransaction: ({ session }) => session?.direction === 'outbound',
    async onEnded({ session, report }, trx) {
      // A chat that ended on its first turn: the call ends once its opening message is known to have gone.
      if (session.direction !== 'outbound' || chats.isOpening(session.id)) return;
      const row = await endAnswered(trx, session.id, report.end_time);
      if (!row) return;
      if (row.campaign_id !== null) await trx.updateTable('call_reports').set({ campaign_id: row.campaign_id }).where('session_id', '=', session.id).execute();
      await enqueueStatus(trx, row, { ...report, campaign_id: row.campaign_id });
      endedInTurn.set(session.id, outcomeOf(row, true));
    },
  };

  return {
    place,
    onOutcome: (listener) => void listeners.push(listener),
    dialResult,
    answered,
    machineResult,
    sweepStale,
    openingStatus: chats.openingStatus,
    sessionEvents,
    sessionEnded(session) {
      const outcome = endedInTurn.get(session.id);
      if (!outcome) return;
      endedInTurn.delete(session.id);
      tell(outcome);
    },
  };
}
