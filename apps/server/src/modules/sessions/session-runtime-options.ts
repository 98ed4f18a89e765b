/**
 * What the composition root hands the session runtime (sessions.service.ts): the engine's ports it
 * fills in, and what a chat's hand-off, a session's end and the sweeps tell the other modules.
 * Declared apart so that the runtime's files read it without importing the service back.
 */
import type { AiPort, AudioLookup, Clock, DialStatus, Messaging, ScriptRunner, Session } from '@voxplan/engine';
import type { MessagingOptions } from '../../context.ts';
import type { ChatHandOff, DialAction } from './chat-handoff.ts';
import type { SessionEvents } from './session-events.ts';
import type { StartRequest } from './session-runtime.ts';

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
