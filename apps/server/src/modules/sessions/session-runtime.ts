/**
 * The session runtime as the rest of the server sees it (docs/sessions.md): start a session, run
 * its turns, find it, sweep it. The app's context names it (context.ts, `ctx.sessions`) and the
 * channels call it; sessions.service.ts makes it. Declared apart from the service so that naming
 * it imports nothing that imports the context back.
 */
import type { ChatCustomer } from '@voxplan/contracts';
import type { DialStatus, EngineEvent, Session, SessionInit, TurnObserver } from '@voxplan/engine';
import type { CaughtUp } from '../../db/read-cache.ts';
import type { StoredOutcome } from './sessions.repository.ts';
import type { StoredReport } from './call-reports.repository.ts';

/** What a caller (a channel, the simulator) gets back from each turn. */
export interface TurnOutcome extends StoredOutcome {
  session_id: string;
  /** This event id was handled before: the outcome is the one stored then; nothing ran again. */
  duplicate: boolean;
  /** The call report, when the turn ended the session (or updated the report of an ended one); null on a duplicate. */
  report: StoredReport | null;
}

/** The engine's session init (tenant, plan, channel, provider, caller, called, ...), and what the host adds. */
export interface StartRequest extends Omit<SessionInit, 'id' | 'plan_version'> {
  /** The channel's id for the call or chat (a call SID); a new session id when left out. At most 200 characters. */
  id?: string;
  /** Run the plan's draft at its current version (the simulator's test runs). */
  draft?: boolean;
  /** Test sessions only: run this published version (the test panel's choice), not the one calls run. */
  version?: number;
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
  /** The read cache's catch-up (ReadCache.catchUp) the channel began once the start's request came in: the start then needs none of its own. */
  caughtUp?: Promise<CaughtUp | null>;
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
