/**
 * What a start and a turn of the session runtime share (docs/sessions.md): the engine's ports, the
 * queue that keeps one session's turns in this instance in line, the plan's timeout and webhook a
 * turn stores with, and the hooks run in the turn's transaction. sessions.service.ts assembles the
 * runtime from this and the files beside it: session-start.ts, session-turn.ts, turn-follow-ups.ts,
 * session-sweeps.ts.
 */
import {
  type AudioLookup,
  type CompiledPlan,
  currentFrame,
  type EnginePorts,
  type EngineEvent,
  type Messaging,
  type Session,
  systemClock,
  type TurnObserver,
  type TurnResult,
  unconfiguredAi,
} from '@voxplan/engine';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { AppContext, MessagingOptions } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { createTransactionRunner } from '../../db/write-batch.ts';
import { badRequest } from '../../errors.ts';
import { createSchedules } from '../date-ranges/schedules.ts';
import { createDestinationLookup } from '../destinations/destination-lookup.ts';
import { createKeptSessions } from './kept-sessions.ts';
import { createPlanLoaders } from './plan-loader.ts';
import { createProtocolGenerator } from './protocols.ts';
import { noSessionEvents, type SessionHookContext } from './session-events.ts';
import type { SessionRuntimeOptions } from './session-runtime-options.ts';
import type { TurnOptions, TurnOutcome, TurnProgress } from './session-runtime.ts';
import { type StoredOutcome, type TurnRow } from './sessions.repository.ts';
import { saveReport, type StoredReport } from './call-reports.repository.ts';

/** The app's context as the session runtime sees it: the runtime is made before the services that use it. */
export type RuntimeContext = Omit<AppContext, 'sessions' | 'license' | 'outboundCalls'>;

/**
 * An id for a session no channel named: a UUID of version 7, which begins with the time. A session
 * is written to several indexes keyed by its id (its row, its events, its report); ids that grow
 * with time land on the last pages of those indexes instead of anywhere in them, so a commit writes
 * a third fewer pages (46 KB to 31 KB of WAL a session on the 20-block IVR) and takes half as long.
 */
export const newSessionId = (): string => uuidv7();

/** The audio port until the audios module provides one: no audio is found. */
export const missingAudios: AudioLookup = { find: () => Promise.resolve(undefined) };

const MAX_ID_LENGTH = 200;

export function checkId(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH || value.includes('\0')) {
    throw badRequest('invalid_input', [{ path, message: `must be text of 1 to ${MAX_ID_LENGTH} characters` }]);
  }
  return value;
}

const isMessaging = (value: Messaging | MessagingOptions): value is Messaging => typeof (value as Messaging).send === 'function';

/** How a turn runs (session-turn.ts). `guard` is asked before every run: false ends the attempt with null. */
export interface TurnRun {
  tenantId?: number;
  guard?: (row: TurnRow) => boolean;
  unprompted?: boolean;
  observer?: TurnProgress;
  authorize?: TurnOptions['authorize'];
}

/** One event, run until it is stored over the revision it read (session-turn.ts). */
export type RunTurn = (sessionId: string, eventId: string, event: EngineEvent, turn: TurnRun) => Promise<TurnOutcome | null>;

/** What follows a stored turn in this instance (turn-follow-ups.ts). */
export interface TurnFollowUps {
  followHandOff(session: Session, outcome: StoredOutcome, isTest: boolean): void;
  followChatEnd(session: Session): void;
  deliverUnprompted(sessionId: string, eventId: string, outcome: TurnOutcome): Promise<void>;
}

export type RuntimeCore = ReturnType<typeof createRuntimeCore>;

export function createRuntimeCore(ctx: RuntimeContext, options: SessionRuntimeOptions) {
  const db = ctx.db;
  const clock = options.clock ?? systemClock;
  const events = options.events ?? noSessionEvents;
  const hooksNeedTransaction = (context: Pick<SessionHookContext, 'is_test' | 'webhook'> & { session?: Session }): boolean => events.needsTransaction?.(context) ?? true;
  const admit = options.admit;
  const maxAttempts = options.maxAttempts ?? 10;
  const sweepBatch = options.sweepBatch ?? 200;
  const claimLeaseMs = options.claimLeaseMs ?? 60_000;
  const log = options.log ?? (() => {});
  const handOff = options.handOff;
  const sessionEnded = options.sessionEnded;
  const plans = createPlanLoaders(db, ctx.readCache, log);
  // The calls' sessions as this instance stored them: their next turn skips parsing the state back.
  const kept = createKeptSessions();
  // Turns that end together commit together on SQLite (db/write-batch.ts).
  const writes = createTransactionRunner(db, ctx.dialect);
  const ports: EnginePorts = {
    plans: plans.published,
    scripts: options.scripts,
    http: ctx.outbound,
    schedules: createSchedules(ctx),
    destinations: createDestinationLookup(db, ctx.readCache),
    audios: options.audios ?? missingAudios,
    // The providers' own (SMS, WhatsApp), from the channels the app assembled.
    messaging: options.messaging && isMessaging(options.messaging) ? options.messaging : ctx.channels.enginePorts.messaging(ctx, options.messaging ?? {}),
    templates: ctx.channels.enginePorts.templates(ctx),
    customerWindow: ctx.channels.enginePorts.customerWindow(ctx),
    ai: options.ai ?? unconfiguredAi,
    clock,
    protocols: createProtocolGenerator(writes),
  };
  const portsFor = (draftPlanId: number | null, observer?: TurnObserver): EnginePorts => {
    if (draftPlanId === null && observer === undefined) return ports;
    return { ...ports, ...(draftPlanId !== null && { plans: plans.withDraft(draftPlanId) }), ...(observer && { observer }) };
  };
  /**
   * Turns of one session in this instance wait for each other, so they never race here; only
   * instances racing each other make a turn run again.
   */
  const queues = new Map<string, Promise<unknown>>();
  function inTurn<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const run = (queues.get(sessionId) ?? Promise.resolve()).then(work);
    const tail = run.then(
      () => {},
      () => {},
    );
    queues.set(sessionId, tail);
    void tail.then(() => {
      if (queues.get(sessionId) === tail) queues.delete(sessionId);
    });
    return run;
  }

  async function planOf(session: Session, draftPlanId: number | null, frame = currentFrame(session)): Promise<CompiledPlan | undefined> {
    return portsFor(draftPlanId).plans.load(session.tenant_id, frame.plan_id, frame.plan_version);
  }

  /** When a waiting chat times out: the current plan's session_timeout_min after now. */
  async function timeoutOf(session: Session, draftPlanId: number | null, now: Date): Promise<string | null> {
    if (session.channel !== 'chat' || session.status !== 'waiting') return null;
    const planMinutes = (await planOf(session, draftPlanId))?.settings.session_timeout_min ?? 30;
    // Anyone can open a web chat with the page's public key: one left waiting is ended sooner.
    const minutes = session.provider === 'webchat' ? Math.min(planMinutes, ctx.config.webchatIdleTimeoutMinutes) : planMinutes;
    return new Date(now.getTime() + minutes * 60_000).toISOString();
  }

  /** The webhook of the plan version the session started in. Read before the turn's transaction: on SQLite a query outside it would wait for it. */
  async function webhookOf(session: Session, draftPlanId: number | null): Promise<string> {
    const first = { plan_id: session.plan_id, plan_version: session.plan_version, plan_name: session.plan_name };
    return (await planOf(session, draftPlanId, first))?.settings.webhook ?? '';
  }

  function outcomeOf(before: Session | null, result: TurnResult, revision: number): StoredOutcome {
    const after = result.session;
    if (result.ignored) return { revision, status: storedStatus(after), actions: [], resumed: null, entered: [], ignored: true };
    const known = before?.path.length ?? 0;
    const last = before?.path.at(-1);
    const resumedEntry = known > 0 ? after.path[known - 1] : undefined;
    return {
      revision,
      status: storedStatus(after),
      actions: result.actions,
      resumed: resumedEntry && resumedEntry.exit !== last?.exit ? resumedEntry : null,
      entered: after.path.slice(known),
      ignored: false,
    };
  }

  async function finishTurn(
    trx: Kysely<Database>,
    context: { before: Session | null; result: TurnResult; isTest: boolean; webhook: string; unprompted: boolean },
    outcome: StoredOutcome,
    sessionId: string,
    now: string,
    storedReport?: StoredReport,
  ): Promise<TurnOutcome> {
    const { before, result, isTest, webhook } = context;
    // `storedReport`: stored already, with the turn (`storeEnd`).
    const report = storedReport ?? (result.report && !result.ignored ? await saveReport(trx, result.report, isTest, now) : null);
    const hasStarted = before === null;
    const hasEnded = before?.status !== 'ended' && result.session.status === 'ended';
    const wantsUnprompted = context.unprompted && outcome.actions.length > 0;
    if (hasStarted || hasEnded || wantsUnprompted) {
      const hook: SessionHookContext = { session: result.session, is_test: isTest, webhook };
      if (hasStarted) await events.onStarted?.(hook, trx);
      if (hasEnded && report) await events.onEnded?.({ ...hook, report }, trx);
      if (wantsUnprompted) await events.onUnprompted?.({ ...hook, actions: outcome.actions }, trx);
    }
    return { ...outcome, session_id: sessionId, duplicate: false, report };
  }

  return {
    ctx,
    db,
    options,
    clock,
    events,
    hooksNeedTransaction,
    admit,
    maxAttempts,
    sweepBatch,
    claimLeaseMs,
    log,
    handOff,
    sessionEnded,
    plans,
    kept,
    writes,
    portsFor,
    inTurn,
    timeoutOf,
    webhookOf,
    outcomeOf,
    finishTurn,
  };
}

/** A stored session is never `new`: its first turn ran before it was stored. */
export function storedStatus(session: Session): 'waiting' | 'ended' {
  return session.status === 'ended' ? 'ended' : 'waiting';
}
