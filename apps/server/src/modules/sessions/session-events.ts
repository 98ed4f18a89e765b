import type { Action, Session } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { StoredReport } from './call-reports.repository.ts';

/** What the hooks learn about the session, besides the engine's own record of it. */
export interface SessionHookContext {
  session: Session;
  is_test: boolean;
  /** The `webhook` setting of the plan version the session started in; empty when none. */
  webhook: string;
}

/**
 * What else happens when a session starts, ends or speaks on its own: the plan webhook plugs in
 * here (`enqueuePlanEvent`).
 *
 * Every hook runs inside the transaction that stores the turn, after its revision check passed,
 * with that transaction as `trx`: what a hook writes is committed with the turn or not at all, so
 * a turn that lost its race (docs/sessions.md) never announces anything, and a turn is never
 * announced twice. A hook must only write to the database (an outbox that another worker sends);
 * calling out from inside the transaction would hold it open. A hook that throws fails the turn.
 */
export interface SessionEvents {
  /** The session was stored for the first time (its first turn may also have ended it). */
  onStarted?(event: SessionHookContext, trx: Kysely<Database>): Promise<void>;
  /** The session ended; its call report is stored. */
  onEnded?(event: SessionHookContext & { report: StoredReport }, trx: Kysely<Database>): Promise<void>;
  /**
   * Actions of a turn nobody is waiting on: the chat sweeper's timeout (the plan's `chat_text`,
   * then the hangup) and a chat hand-off's outcome. They are also kept with the turn's event; the
   * session's chat sender (chat-channels.ts) delivers them once the turn is committed.
   */
  onUnprompted?(event: SessionHookContext & { actions: Action[] }, trx: Kysely<Database>): Promise<void>;
  /**
   * Whether the hooks need the turn's transaction for this session: they write, or may fail. When
   * they do not, a start or an end on PostgreSQL stores itself in one statement without `begin` and
   * `commit`, and the hooks run once it is committed (sessions.service.ts). Absent: always.
   */
  needsTransaction?(context: Pick<SessionHookContext, 'is_test' | 'webhook'> & { session?: Session }): boolean;
}

/** Several hooks as one: each runs in turn, in the order given; the transaction is needed when any of them needs it. */
export function combineSessionEvents(...all: readonly SessionEvents[]): SessionEvents {
  return {
    needsTransaction: (context) => all.some((events) => events.needsTransaction?.(context) ?? true),
    async onStarted(event, trx) {
      for (const events of all) await events.onStarted?.(event, trx);
    },
    async onEnded(event, trx) {
      for (const events of all) await events.onEnded?.(event, trx);
    },
    async onUnprompted(event, trx) {
      for (const events of all) await events.onUnprompted?.(event, trx);
    },
  };
}

export const noSessionEvents: SessionEvents = {};

