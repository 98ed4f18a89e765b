/**
 * The turn runner: sessions of calls and chats kept in the database, so any instance can take the
 * next turn (docs/sessions.md).
 *
 * A turn reads the stored session, runs the engine outside any transaction (blocks may call out
 * over HTTP or run Lua for up to 30 s), then writes the result in one transaction only if the
 * stored revision is still the one it read, together with the event's id. When another turn got
 * there first, it reads the session again and runs the event on what that turn left. The same
 * event id delivered twice answers the outcome stored the first time.
 *
 * The runtime is assembled here from the files beside it: runtime-core.ts (what a start and a turn
 * share), session-start.ts, session-turn.ts, turn-follow-ups.ts (what follows a stored turn) and
 * session-sweeps.ts (the end of sessions nobody ends).
 */
import type { AppContext } from '../../context.ts';
import { createRuntimeCore, missingAudios, newSessionId } from './runtime-core.ts';
import type { DeskHandOff, QueueHandOff, SessionRuntimeOptions } from './session-runtime-options.ts';
import { createStarts } from './session-start.ts';
import { createSweeps } from './session-sweeps.ts';
import { createTurns } from './session-turn.ts';
import { createFollowUps } from './turn-follow-ups.ts';
import { findSession, parseSession } from './sessions.repository.ts';
import type { SessionRuntime, StartOptions, StartRequest, StoredSession, TurnOptions, TurnOutcome, TurnProgress } from './session-runtime.ts';

export type { SessionRuntime, StartOptions, StartRequest, StoredSession, TurnOptions, TurnOutcome, TurnProgress };
export type { DeskHandOff, QueueHandOff, SessionRuntimeOptions };
export { missingAudios, newSessionId };

export function createSessionRuntime(ctx: Omit<AppContext, 'sessions' | 'license' | 'outboundCalls'>, options: SessionRuntimeOptions): SessionRuntime {
  const core = createRuntimeCore(ctx, options);
  // A stored turn may start the next (a chat hand-off's answer): the follow-ups reach the turns once both are made.
  const followUps = createFollowUps(core, (sessionId, eventId, event, turn) => turns.runTurn(sessionId, eventId, event, turn));
  const turns = createTurns(core, followUps);
  const start = createStarts(core, followUps);
  const { sweepTimeouts, expireStale } = createSweeps(core, turns.runTurn, followUps);

  return {
    start,
    handleTurn: turns.handleTurn,
    sweepTimeouts,
    expireStale,
    resumeParked: followUps.resumeParked,
    close: followUps.close,
    async find(sessionId) {
      const row = await findSession(core.db, sessionId);
      if (!row) return undefined;
      return { session: parseSession(row), revision: row.revision, is_test: row.is_test === 1, is_draft: row.is_draft === 1, timeout_time: row.timeout_time };
    },
  };
}
