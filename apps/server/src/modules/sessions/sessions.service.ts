/**
 * The turn runner: sessions of calls and chats kept in the database, so any instance can take the
 * next turn (docs/sessions.md).
 *
 * A turn reads the stored session, runs the engine outside any transaction (blocks may call out
 * over HTTP or run Lua for up to 30 s), then writes the result in one transaction only if the
 * stored revision is still the one it read, together with the event's id. When another turn got
 * there first, it reads the session again and runs the event on what that turn left. The same
 * event id delivered twice answers the outcome stored the first time.
 */
import {
  type AiPort,
  type AudioLookup,
  type Clock,
  type CompiledPlan,
  type DialStatus,
  currentFrame,
  type EngineEvent,
  type EnginePorts,
  handleEvent,
  type Messaging,
  type ScriptRunner,
  type Session,
  type SessionInit,
  startSession,
  systemClock,
  type TurnObserver,
  type TurnResult,
  unconfiguredAi,
} from '@voxplan/engine';
import type { ChatCustomer } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { AppContext } from '../../context.ts';
import { uniqueViolationColumns } from '../../db/constraint-errors.ts';
import type { Database } from '../../db/schema.ts';
import { createTransactionRunner } from '../../db/write-batch.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { createSchedules } from '../date-ranges/schedules.ts';
import { createDestinationLookup } from '../destinations/destination-lookup.ts';
import { deliverChatTurn } from './chat-channels.ts';
import { createKeptSessions } from './kept-sessions.ts';
import type { ChatHandOff, DialAction } from './chat-handoff.ts';
import { liveEventsOf, publishLiveEvents } from './live-events.ts';
import { createMessaging, type MessagingOptions } from './messaging.ts';
import { createCustomerWindow, createTemplates } from './whatsapp-ports.ts';
import { createPlanLoaders } from './plan-loader.ts';
import { createProtocolGenerator } from './protocols.ts';
import { noSessionEvents, type SessionEvents, type SessionHookContext } from './session-events.ts';
import { tenantLanguage } from './system-messages.ts';
import {
  claimTimeout,
  dueChatSessions,
  findEventOutcome,
  findSession,
  findStart,
  findSessionForEvent,
  parseSession,
  sessionColumns,
  staleVoiceSessions,
  type SessionRow,
  type StoredOutcome,
  storeStart,
  storeEnd,
  storeTurn,
  type SessionTurnChanges,
} from './sessions.repository.ts';
import { saveReport, type StoredReport } from './call-reports.repository.ts';

/** What a caller (a channel, the simulator) gets back from each turn. */
export interface TurnOutcome extends StoredOutcome {
  session_id: string;
  /** This event id was handled before: the outcome is the one stored then; nothing ran again. */
  duplicate: boolean;
  /** The call report, when the turn ended the session (or updated the report of an ended one); null on a duplicate. */
  report: StoredReport | null;
}

/**
 * An id for a session no channel named: a UUID of version 7, which begins with the time. A session
 * is written to several indexes keyed by its id (its row, its events, its report); ids that grow
 * with time land on the last pages of those indexes instead of anywhere in them, so a commit writes
 * a third fewer pages (46 KB to 31 KB of WAL a session on the 20-block IVR) and takes half as long.
 */
export const newSessionId = (): string => uuidv7();

/** The engine's session init (tenant, plan, channel, provider, caller, called, ...), and what the host adds. */
export interface StartRequest extends Omit<SessionInit, 'id' | 'plan_version'> {
  /** The channel's id for the call or chat (a call SID); a new session id when left out. At most 200 characters. */
  id?: string;
  /** Run the plan's draft at its current version (the simulator's test runs). */
  draft?: boolean;
  /** A test session: its report stays out of lists and counts unless asked for. Default: `draft`. */
  is_test?: boolean;
  /**
   * Test sessions only: begin at this block of the version run instead of where the start block
   * leads (engine StartOptions). A block not in that version is refused with `start_node_not_found`.
   */
  start_node?: string;
  /** Who the customer is, as the channel told it (docs/conversations.md): kept beside the session for agents to read. */
  customer?: ChatCustomer;
  /** An outbound call nobody answered: stored ended with this dial status and its report, the plan never run (engine StartOptions). */
  unanswered?: Exclude<DialStatus, 'answer'>;
}

export interface StartOptions {
  observer?: TurnProgress;
  /** Told once the start is accepted, before its first block runs; not told when it is refused. */
  accepted?: () => void;
}

/** Told of a turn while it runs (the simulator streams it). */
export interface TurnProgress extends TurnObserver {
  /**
   * What the observer was told since the turn began will not be stored: another instance stored
   * the session (or this start) first. The event then runs again on what that left, or the start
   * answers the stored first turn.
   */
  discarded(): void;
}

export interface TurnOptions {
  /** The tenant the caller works in: another tenant's session is not found. */
  tenantId?: number;
  observer?: TurnProgress;
  /**
   * Checks the request against the session's tenant (a provider's signature) once the session is
   * read and before anything else, a duplicate's stored answer included; a refusal throws. A
   * channel's webhook learns the tenant from the turn's own read instead of reading it first.
   */
  authorize?: (tenantId: number) => Promise<void> | void;
}

export interface StoredSession {
  session: Session;
  revision: number;
  is_test: boolean;
  is_draft: boolean;
  /** When a waiting chat times out; null otherwise. */
  timeout_time: string | null;
}

export interface SessionRuntime {
  /** Stores a new session and runs it to its first wait. Starting an id that exists answers its first turn again (`duplicate`). */
  start(request: StartRequest, options?: StartOptions): Promise<TurnOutcome>;
  /** Runs one event of a stored session. `eventId` is the channel's id for this delivery (at most 200 characters). */
  handleTurn(sessionId: string, eventId: string, event: EngineEvent, options?: TurnOptions): Promise<TurnOutcome>;
  find(sessionId: string): Promise<StoredSession | undefined>;
  /**
   * One pass of the chat sweeper: ends chats idle past their plan's timeout, their last actions
   * sent through the provider's chat sender (chat-channels.ts); answers the ids it ended.
   */
  sweepTimeouts(): Promise<string[]>;
  /**
   * Closes voice sessions without activity since `inactiveSince` (their provider never told their
   * end) with the engine's `expire` event: disposition `expired`, hang-up cause `end_not_received`,
   * their report written and the end published as on any end. Answers the ids it closed.
   */
  expireStale(inactiveSince: string): Promise<string[]>;
  /**
   * Runs `event` on a chat parked at its destination block while a person held it (a queue's
   * conversation, an outside desk's) and sends the turn's actions to the customer through the
   * provider's chat sender. Nothing runs if the chat is no longer waiting, or `eventId` ran before.
   */
  resumeParked(sessionId: string, eventId: string, event: EngineEvent): Promise<void>;
  /** Starts no more hand-offs and waits for those under way; call it before the database closes. */
  close(): Promise<void>;
}

/**
 * A hand-off to a chat queue (a chat destination without URI: modules/conversations): answers the
 * block's exit to take at once (`busy`), or null when the chat is parked until a person closes it.
 */
export type QueueHandOff = (request: { session: Session; dial: DialAction; revision: number; is_test: boolean }) => Promise<DialStatus | null>;

/**
 * An outside desk (a URL chat destination) keeps the chat it was handed: `reply` gives the URL and
 * token its answer `accepted` holds the chat with (modules/conversations/desk.ts).
 */
export interface DeskHandOff {
  /** The reply URL and a new token for the hand-off the turn at `revision` of the session starts. */
  reply(sessionId: string, revision: number): { url: string; token: string };
  /** The desk answered `accepted`: the chat is parked in a conversation the desk holds. */
  accepted(request: { session: Session; dial: DialAction; revision: number; token: string }): Promise<void>;
}

export interface SessionRuntimeOptions {
  scripts: ScriptRunner;
  clock?: Clock;
  events?: SessionEvents;
  /** The audios module's port; until it is wired, every audio counts as removed (prompts fall back to their voice text). */
  audios?: AudioLookup;
  ai?: AiPort;
  messaging?: Messaging | MessagingOptions;
  /** Runs of one turn that lost its race before it answers `session_busy`. Default 10. */
  maxAttempts?: number;
  /**
   * Posts a chat's conversation to the chat destination a `destination` block reached, and runs
   * the receiver's answer as the block's `dial_result` (docs/handoff.md). Without it, the
   * channel supplies the `dial_result` (the runtime's own tests).
   */
  handOff?: ChatHandOff;
  /** A `destination` block on a chat reached a queue (a chat destination without URI). */
  queueHandOff?: QueueHandOff;
  /** A URL chat destination may keep the chat (`accepted`). Without it, `accepted` counts as `answer`. */
  deskHandOff?: DeskHandOff;
  /** Also run by each chat sweep: conversations nobody took in time (modules/conversations). */
  sweepParked?: () => Promise<unknown>;
  /** A session ended, once its turn is stored (the outbound calls tell their campaigns). */
  sessionEnded?: (session: Session) => void;
  /** A chat ended, once its turn is stored: a conversation still waiting for it is closed (the customer left). */
  chatEnded?: (sessionId: string) => Promise<unknown>;
  /** Chats the sweeper takes per pass. Default 200. */
  sweepBatch?: number;
  /**
   * Refuses a new call or chat (throws an AppError) before anything is stored: the licence's
   * concurrent sessions. Test sessions and a start repeated by its channel are not asked.
   * `running`: the running sessions the licence counts it with (`countRunningLike`), read in the
   * same statement as the start's check for a repeat.
   */
  admit?: (session: Pick<StartRequest, 'tenant_id' | 'provider'>, running: number) => Promise<void>;
  /** How long a sweeper's claim on a timeout lasts, should it die before ending the chat. Default 60 s. */
  claimLeaseMs?: number;
  log?: (message: string) => void;
}

/** The audio port until the audios module provides one: no audio is found. */
export const missingAudios: AudioLookup = { find: () => Promise.resolve(undefined) };

const MAX_ID_LENGTH = 200;

/** Batches of stale sessions one expiry pass takes at most (after a long stop there may be many); the rest wait for the next pass. */
const MAX_EXPIRY_BATCHES = 50;

function checkId(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH || value.includes('\0')) {
    throw badRequest('invalid_input', [{ path, message: `must be text of 1 to ${MAX_ID_LENGTH} characters` }]);
  }
  return value;
}

const isMessaging = (value: Messaging | MessagingOptions): value is Messaging => typeof (value as Messaging).send === 'function';

export function createSessionRuntime(ctx: Omit<AppContext, 'sessions' | 'license' | 'outboundCalls'>, options: SessionRuntimeOptions): SessionRuntime {
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
  /** Hand-offs under way in this instance, with the turns that follow them. */
  const handOffs = new Set<Promise<void>>();
  let isClosing = false;
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
    messaging: options.messaging && isMessaging(options.messaging) ? options.messaging : createMessaging(ctx, options.messaging ?? {}),
    templates: createTemplates(ctx),
    customerWindow: createCustomerWindow(ctx),
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

  /**
   * The stored first turn of a start whose id exists: a redelivery of the same start. An id is a
   * provider's (a call SID) and so chosen by whoever signs the request; one that belongs to another
   * tenant's or another provider's session is refused, never answered with that session's turn.
   */
  async function duplicateStart(id: string, init: Pick<StartRequest, 'tenant_id' | 'provider'>): Promise<TurnOutcome | undefined> {
    return storedStart(id, init, await findEventOutcome(db, id, 'start'));
  }

  /** `duplicateStart` of a first turn read already. */
  async function storedStart(id: string, init: Pick<StartRequest, 'tenant_id' | 'provider'>, stored: StoredOutcome | undefined): Promise<TurnOutcome | undefined> {
    if (!stored) return undefined;
    const row = await findSession(db, id);
    if (!row || row.tenant_id !== init.tenant_id || row.provider !== init.provider) throw conflict('session_id_taken');
    return { ...stored, session_id: id, duplicate: true, report: null };
  }

  /**
   * The version a start at a chosen block runs, once that block is found in it: pinned here, so
   * that a publish in between cannot run another version than the one checked. Undefined when the
   * plan cannot be loaded, which fails the session as on any start.
   */
  async function checkStartNode(tenantId: number, planId: number, draftVersion: number | undefined, nodeId: string): Promise<number | undefined> {
    const plan = draftVersion === undefined ? await plans.published.loadPublished(tenantId, planId) : await plans.withDraft(planId).load(tenantId, planId, draftVersion);
    if (plan && !plan.nodes.has(nodeId)) throw badRequest('start_node_not_found', [{ path: 'start_node', message: `no block ${nodeId} in version ${plan.version}` }]);
    return plan?.version;
  }

  async function start(request: StartRequest, options: StartOptions = {}): Promise<TurnOutcome> {
    const id = checkId(request.id ?? newSessionId(), 'id');
    return inTurn(id, async () => {
      const { draft, is_test, start_node, customer, unanswered, ...init } = request;
      const isDraft = draft === true;
      const isTest = is_test ?? isDraft;
      const counted = !isTest && admit !== undefined;
      const checked = await findStart(db, id, counted ? init : undefined);
      const existing = await storedStart(id, request, checked.stored);
      if (existing) {
        options.accepted?.();
        return existing;
      }
      if (counted) await admit(init, checked.running);
      // Real calls always begin at the start block: what they run is what the plan says.
      if (start_node !== undefined && !isTest) throw badRequest('invalid_input', [{ path: 'start_node', message: 'only test sessions begin at a chosen block' }]);
      // Nor do they run "as if" at another time: a caller's date range reads the real clock.
      if (init.schedule_clock !== undefined && !isTest) throw badRequest('invalid_input', [{ path: 'schedule_clock', message: 'only test sessions run as if at another time' }]);
      const draftPlanId = isDraft ? init.plan_id : null;
      // A plan without a draft pins version 0, which does not exist: the session fails as plan_not_found.
      let planVersion = isDraft ? ((await plans.draftVersion(init.tenant_id, init.plan_id)) ?? 0) : undefined;
      if (start_node !== undefined) planVersion = (await checkStartNode(init.tenant_id, init.plan_id, planVersion, start_node)) ?? planVersion;
      options.accepted?.();
      // What the plan speaks when it names no language; pinned in the session, like its plan version.
      const language = init.language ?? (await tenantLanguage(ctx, init.tenant_id));
      const result = await startSession(
        { ...init, id, language, ...(planVersion !== undefined && { plan_version: planVersion }) },
        portsFor(draftPlanId, options.observer),
        { ...(start_node !== undefined && { startNodeId: start_node }), ...(unanswered !== undefined && { unanswered }) },
      );
      const session = result.session;
      const now = clock.now();
      const nowText = now.toISOString();
      const outcome = outcomeOf(null, result, 1);
      const timeoutTime = await timeoutOf(session, draftPlanId, now);
      const webhook = await webhookOf(session, draftPlanId);
      const stored = {
        ...sessionColumns(session),
        is_draft: isDraft ? 1 : 0,
        status: storedStatus(session),
        state: JSON.stringify(session),
        revision: 1,
        is_test: isTest ? 1 : 0,
        last_activity_time: nowText,
        timeout_time: timeoutTime,
        created_time: nowText,
        updated_time: nowText,
        ended_time: session.ended_at,
        customer: customer ? JSON.stringify(customer) : null,
      };
      const finishing = { before: null, result, isTest, webhook, unprompted: false };
      // A start that writes its session and event alone is, on PostgreSQL, one statement: no transaction around it.
      const isAlone = ctx.dialect === 'postgres' && !(result.report && !result.ignored) && !hooksNeedTransaction({ is_test: isTest, webhook, session });
      try {
        const store = async (db: Kysely<Database>) => {
          await storeStart(db, ctx.dialect, stored, outcome);
          return finishTurn(db, finishing, outcome, id, nowText);
        };
        const committed = isAlone ? await writes.runStatement(store) : await writes.run(store);
        kept.keep(session, stored.revision, stored.updated_time, false);
        publishLiveEvents(ctx.bus, () => liveEventsOf(null, session, outcome, isTest));
        followHandOff(session, outcome, isTest);
        if (session.status === 'ended') sessionEnded?.(session);
        return committed;
      } catch (error) {
        // Another instance stored the same id first: its first turn is the answer.
        if (uniqueViolationColumns(error) === undefined) throw error;
        const stored = await duplicateStart(id, request);
        if (!stored) throw error;
        options.observer?.discarded();
        return stored;
      }
    });
  }

  /**
   * One event, run until it is stored over the revision it read. `guard` is asked before every
   * run: false ends the attempt with null (the sweeper's timeout no longer applies).
   */
  async function runTurn(
    sessionId: string,
    eventId: string,
    event: EngineEvent,
    turn: { tenantId?: number; guard?: (row: SessionRow) => boolean; unprompted?: boolean; observer?: TurnProgress; authorize?: TurnOptions['authorize'] },
  ): Promise<TurnOutcome | null> {
    for (let attempt = 1; ; attempt++) {
      const found = await findSessionForEvent(db, sessionId, eventId);
      if (!found || (turn.tenantId !== undefined && found.row.tenant_id !== turn.tenantId)) throw notFound('session_not_found');
      const { row } = found;
      // A session's tenant never changes: asked on the first read only.
      if (attempt === 1) await turn.authorize?.(row.tenant_id);
      if (found.stored) return { ...found.stored, session_id: sessionId, duplicate: true, report: null };
      if (turn.guard && !turn.guard(row)) return null;
      const before = kept.take(row) ?? parseSession(row);
      const isTest = row.is_test === 1;
      const draftPlanId = row.is_draft === 1 ? row.plan_id : null;
      const result = await handleEvent(before, event, portsFor(draftPlanId, turn.observer));
      const now = clock.now();
      const nowText = now.toISOString();
      const outcome = outcomeOf(before, result, row.revision + 1);
      const session = result.session;
      const turnChanges: SessionTurnChanges | null = result.ignored
        ? null
        : {
            revision: outcome.revision,
            status: storedStatus(session),
            state: JSON.stringify(session),
            last_activity_time: nowText,
            timeout_time: await timeoutOf(session, draftPlanId, now),
            updated_time: nowText,
            ended_time: session.ended_at,
          };
      const changes = turnChanges ?? { revision: outcome.revision, updated_time: nowText };
      const isHooked = (before.status !== 'ended' && session.status === 'ended') || (turn.unprompted === true && outcome.actions.length > 0);
      const webhook = isHooked ? await webhookOf(session, draftPlanId) : '';
      const stored = { id: sessionId, revision: row.revision, changes, eventId, outcome };
      const report = result.report && !result.ignored ? result.report : null;
      // A turn with neither report nor hooks writes its session and event alone: on PostgreSQL one statement, its own transaction.
      const isAlone = ctx.dialect === 'postgres' && !isHooked && !report;
      // So does the turn that ends a session, with its report and rollups, when no hook writes.
      const isAloneEnd = ctx.dialect === 'postgres' && before.status !== 'ended' && !hooksNeedTransaction({ is_test: isTest, webhook, session });
      let committed: TurnOutcome | null;
      try {
        if (isAlone) {
          committed = (await storeTurn(db, ctx.dialect, stored)) ? { ...outcome, session_id: sessionId, duplicate: false, report: null } : null;
        } else if (isAloneEnd && report && turnChanges) {
          const storedReport = await storeEnd(db, { ...stored, changes: turnChanges }, report, isTest, nowText);
          committed = storedReport && (await finishTurn(db, { before, result, isTest, webhook, unprompted: turn.unprompted === true }, outcome, sessionId, nowText, storedReport));
        } else {
          committed = await writes.run(async (trx) => {
            if (!(await storeTurn(trx, ctx.dialect, stored))) return null;
            return finishTurn(trx, { before, result, isTest, webhook, unprompted: turn.unprompted === true }, outcome, sessionId, nowText);
          });
        }
      } catch (error) {
        // The same event id stored meanwhile by a turn this one did not see: read again.
        if (uniqueViolationColumns(error) === undefined) throw error;
        committed = null;
      }
      if (committed) {
        // An ignored event moved the revision only: the state stored is still `before`.
        kept.keep(result.ignored ? before : session, changes.revision, changes.updated_time, before.status === 'ended');
        if (!result.ignored) {
          publishLiveEvents(ctx.bus, () => liveEventsOf(before, session, outcome, isTest));
          followHandOff(session, outcome, isTest);
          followChatEnd(session);
          if (before.status !== 'ended' && session.status === 'ended') sessionEnded?.(session);
        }
        return committed;
      }
      turn.observer?.discarded();
      if (attempt >= maxAttempts) throw conflict('session_busy');
    }
  }

  async function handleTurn(sessionId: string, eventId: string, event: EngineEvent, options: TurnOptions = {}): Promise<TurnOutcome> {
    checkId(sessionId, 'session_id');
    checkId(eventId, 'event_id');
    const outcome = await inTurn(sessionId, () => runTurn(sessionId, eventId, event, options));
    // Without a guard a turn always ends stored or thrown.
    return outcome!;
  }

  /**
   * A chat turn that reached a chat destination hands the conversation off once it is stored. The
   * user's channel answers that turn meanwhile (its replies, then the wait); the receiver's answer
   * becomes the next turn, `handoff:<revision>`, sent to the conversation through the provider's
   * chat sender. It runs only while the session still waits at that block: a hangup or a sweep
   * that came first stands.
   */
  function followHandOff(session: Session, outcome: StoredOutcome, isTest: boolean): void {
    if ((!handOff && !options.queueHandOff) || isClosing || session.channel !== 'chat' || session.status === 'ended') return;
    const dial = outcome.actions.findLast((action): action is DialAction => action.type === 'dial');
    if (!dial) return;
    const sessionId = session.id;
    const eventId = `handoff:${outcome.revision}`;
    const pathLength = session.path.length;
    const stillWaiting = (row: SessionRow) => row.status === 'waiting' && parseSession(row).path.length === pathLength;
    const task = (async () => {
      let status: DialStatus;
      // A queue has no URL: its agents answer in the console (docs/conversations.md).
      if (dial.uri === '' && options.queueHandOff) {
        const exit = await options.queueHandOff({ session, dial, revision: outcome.revision, is_test: isTest });
        if (exit === null) return;
        status = exit;
      } else {
        if (!handOff) return;
        const desk = options.deskHandOff;
        const reply = desk?.reply(sessionId, outcome.revision);
        const result = await handOff.send({ session, dial, is_test: isTest, delivery_id: `${sessionId}:${outcome.revision}`, ...(reply && { reply }) });
        if (result.error) log(`hand-off of session ${sessionId} to destination ${dial.destination_id}: ${result.status} after ${result.attempts} attempts (${result.error})`);
        if (result.status === 'accepted' && desk && reply && !isClosing) {
          await desk.accepted({ session, dial, revision: outcome.revision, token: reply.token });
          return;
        }
        status = result.status === 'accepted' ? 'answer' : result.status;
      }
      // A server that stops leaves the chat waiting: another turn, or the sweeper, moves it on.
      if (isClosing) return;
      const turn = await inTurn(sessionId, () => runTurn(sessionId, eventId, { type: 'dial_result', status }, { guard: stillWaiting, unprompted: true }));
      if (turn && !turn.duplicate) await deliverUnprompted(sessionId, eventId, turn);
    })().catch((error: unknown) => log(`hand-off of session ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`));
    handOffs.add(task);
    void task.finally(() => handOffs.delete(task));
  }

  /** A chat that ended while waiting for a person leaves no conversation in the queue (docs/handoff.md, "Outcomes"). */
  function followChatEnd(session: Session): void {
    if (!options.chatEnded || session.channel !== 'chat' || session.status !== 'ended' || session.dial_status !== 'cancel') return;
    const task = options
      .chatEnded(session.id)
      .then(() => undefined)
      .catch((error: unknown) => log(`closing the conversation of session ${session.id} failed: ${error instanceof Error ? error.message : String(error)}`));
    handOffs.add(task);
    void task.finally(() => handOffs.delete(task));
  }

  /** A stored turn nobody waits on goes to the conversation through its provider's chat sender. */
  async function deliverUnprompted(sessionId: string, eventId: string, outcome: TurnOutcome): Promise<void> {
    const row = await findSession(db, sessionId);
    if (!row) return;
    await deliverChatTurn(ctx, { session: parseSession(row), is_test: row.is_test === 1, outcome, event_id: eventId }, log);
  }

  /**
   * One event run on each session a sweep found, only while the session is still at the revision
   * it was found at: a turn stored since (a message, another instance's sweep) wins, and the
   * event's id, stored with the turn, keeps it from running twice. `claim` may take a session for
   * this instance first, or pass it by (false). One session's failure does not stop the others.
   * Answers the ids of the sessions the event ended.
   */
  async function sweepEach(
    what: string,
    found: ReadonlyArray<{ id: string; revision: number }>,
    turnOf: (candidate: { id: string; revision: number }) => { eventId: string; event: EngineEvent; claim?: () => Promise<boolean> },
  ): Promise<string[]> {
    const ended: string[] = [];
    for (const candidate of found) {
      const { eventId, event, claim } = turnOf(candidate);
      try {
        if (claim && !(await claim())) continue;
        const outcome = await inTurn(candidate.id, () =>
          runTurn(candidate.id, eventId, event, { guard: (row) => row.revision === candidate.revision, unprompted: true }),
        );
        if (!outcome || outcome.duplicate) continue;
        if (outcome.actions.length > 0) await deliverUnprompted(candidate.id, eventId, outcome);
        if (outcome.status === 'ended') ended.push(candidate.id);
      } catch (error) {
        // Tried again on the next pass (a chat's claim runs out first).
        log(`${what} of session ${candidate.id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return ended;
  }

  async function resumeParked(sessionId: string, eventId: string, event: EngineEvent): Promise<void> {
    const turn = await inTurn(sessionId, () => runTurn(sessionId, eventId, event, { guard: (row) => row.status === 'waiting', unprompted: true }));
    if (turn && !turn.duplicate) await deliverUnprompted(sessionId, eventId, turn);
  }

  async function sweepTimeouts(): Promise<string[]> {
    if (options.sweepParked) {
      await options.sweepParked().catch((error: unknown) => log(`conversation sweep failed: ${error instanceof Error ? error.message : String(error)}`));
    }
    const now = clock.now();
    const due = await dueChatSessions(db, now.toISOString(), sweepBatch);
    const leaseUntil = new Date(now.getTime() + claimLeaseMs).toISOString();
    return sweepEach('chat timeout', due, (candidate) => {
      const timeoutTime = due.find((row) => row.id === candidate.id)!.timeout_time!;
      return {
        eventId: `timeout:${timeoutTime}`,
        event: { type: 'timeout' },
        // A message that arrives after the claim moves the revision on; the timeout then no longer applies.
        claim: () => claimTimeout(db, candidate.id, candidate.revision, timeoutTime, leaseUntil),
      };
    });
  }

  async function expireStale(inactiveSince: string): Promise<string[]> {
    const ended: string[] = [];
    for (let pass = 0; pass < MAX_EXPIRY_BATCHES; pass++) {
      const stale = await staleVoiceSessions(db, inactiveSince, sweepBatch);
      const byId = new Map(stale.map((row) => [row.id, row]));
      ended.push(
        ...(await sweepEach('expiry', stale, (candidate) => ({
          // One expiry per session: the same id from a racing instance answers the stored turn.
          eventId: 'expire',
          event: { type: 'expire', at: byId.get(candidate.id)!.last_activity_time },
        }))),
      );
      if (stale.length < sweepBatch) break;
    }
    return ended;
  }

  return {
    start,
    handleTurn,
    sweepTimeouts,
    expireStale,
    resumeParked,
    async close() {
      isClosing = true;
      await handOff?.stop();
      await Promise.all([...handOffs]);
    },
    async find(sessionId) {
      const row = await findSession(db, sessionId);
      if (!row) return undefined;
      return { session: parseSession(row), revision: row.revision, is_test: row.is_test === 1, is_draft: row.is_draft === 1, timeout_time: row.timeout_time };
    },
  };
}

/** A stored session is never `new`: its first turn ran before it was stored. */
function storedStatus(session: Session): 'waiting' | 'ended' {
  return session.status === 'ended' ? 'ended' : 'waiting';
}

