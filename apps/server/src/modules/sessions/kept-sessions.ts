import type { Session } from '@voxplan/engine';
import type { SessionRow } from './sessions.repository.ts';

/**
 * The sessions of calls this instance stored last, as the engine left them, so that their next
 * turn here need not parse back the JSON it has just written (a call's next callback mostly comes
 * back to the same instance; parsing the state was 5.5 % of a Twilio call's server CPU, issue 40).
 *
 * A kept session is used only when the row a turn reads is still the one this instance wrote: the
 * same revision (every change of the state moves it, and a turn writes only over the revision it
 * read) and the same update time. Any other writer's turn, on this instance or another, misses.
 * The engine never changes a session it is given (interpreter.test.ts) and nothing on the server
 * changes one after its turn, so the object kept is the one the JSON was written from. The
 * engine keeps its values JSON's own (finite numbers, text, booleans, null: `normaliseValue`),
 * so the parsed copy would be equal to it.
 *
 * Only voice sessions are kept: a call lasts minutes, while a chat may wait for hours (memory per
 * live chat is a budget of its own). A call that has just ended is kept for one more turn, the
 * provider's end of the call (Twilio's status callback); a turn of a session ended before drops it.
 */
export interface KeptSessions {
  /** The session `row` holds, if this instance wrote that very row. */
  take(row: Pick<SessionRow, 'id' | 'revision' | 'updated_time'>): Session | undefined;
  /**
   * `session`, stored at `revision` and `updatedTime`, may be taken by the session's next turn.
   * `endedBefore`: the turn ran on a session that had ended already; nothing is kept.
   */
  keep(session: Session, revision: number, updatedTime: string, endedBefore: boolean): void;
  forget(sessionId: string): void;
  readonly size: number;
}

interface Kept {
  session: Session;
  revision: number;
  updatedTime: string;
}

export function createKeptSessions(limit = 5_000): KeptSessions {
  const kept = new Map<string, Kept>();
  return {
    take(row) {
      const found = kept.get(row.id);
      return found !== undefined && found.revision === row.revision && found.updatedTime === row.updated_time ? found.session : undefined;
    },
    keep(session, revision, updatedTime, endedBefore) {
      kept.delete(session.id);
      if (session.channel !== 'voice' || endedBefore) return;
      kept.set(session.id, { session, revision, updatedTime });
      // The oldest first: a call whose end never came here (another instance took it) is dropped in time.
      if (kept.size > limit) kept.delete(kept.keys().next().value!);
    },
    forget(sessionId) {
      kept.delete(sessionId);
    },
    get size() {
      return kept.size;
    },
  };
}
