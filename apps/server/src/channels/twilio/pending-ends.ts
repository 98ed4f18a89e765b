/**
 * Call ends this instance could not store yet (docs/channels-twilio.md, "When the database
 * falters"). Twilio does not send a status callback again when it is answered with a 5xx: its
 * webhooks' retry policy (connection overrides, https://www.twilio.com/docs/usage/webhooks/webhooks-connection-overrides)
 * retries only a failed connection by default (`rp=ct`), so an end answered 500 was lost and its
 * session stayed waiting. Such an end is answered 204, kept here and tried every second until it
 * is stored; so is the end of a call whose start answered after its deadline (the caller already
 * heard "not available" and was hung up), and a final status that came while the call's start was
 * still running on this instance. Bounded: past MAX_PENDING the oldest goes, and an end kept past
 * MAX_AGE_MS is given up; the lost-calls sweeper (lost-calls.ts) is the net for those and for an
 * instance that died holding some.
 */

/** What storing an end came to: stored (or already ended), no such session, or a failure to try again. */
export type EndResult = 'stored' | 'no-session';

export interface PendingEnd {
  sessionId: string;
  /** Stores the end ('call-end', idempotent); throws when the database is still away. */
  apply: () => Promise<EndResult>;
}

export interface PendingEndsLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export const MAX_PENDING_ENDS = 10_000;
const MAX_AGE_MS = 10 * 60_000;
const RETRY_MS = 1000;

export interface PendingEnds {
  /** Keeps an end to store; a second end of one session replaces the first. */
  add(end: PendingEnd): void;
  /** Tries the ends now (the database is back, or a start just finished). */
  flush(): Promise<void>;
  readonly size: number;
  close(): void;
}

export function createPendingEnds(options: {
  log: PendingEndsLog;
  /** Whether a start of this call is running on this instance: its end waits for it rather than finding no session. */
  startInFlight: (sessionId: string) => boolean;
  retryMs?: number;
  maxPending?: number;
  maxAgeMs?: number;
  now?: () => number;
}): PendingEnds {
  const { log, startInFlight } = options;
  const retryMs = options.retryMs ?? RETRY_MS;
  const maxPending = options.maxPending ?? MAX_PENDING_ENDS;
  const maxAgeMs = options.maxAgeMs ?? MAX_AGE_MS;
  const now = options.now ?? Date.now;
  const pending = new Map<string, PendingEnd & { since: number }>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let closed = false;

  const schedule = () => {
    if (closed || timer || pending.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, retryMs);
    timer.unref();
  };

  async function tryAll(): Promise<void> {
    for (const [sessionId, end] of [...pending]) {
      if (closed) return;
      if (now() - end.since > maxAgeMs) {
        pending.delete(sessionId);
        log.warn({ session: sessionId }, 'a call end kept while the database was away was given up; the lost-calls sweeper closes its session');
        continue;
      }
      let result: EndResult;
      try {
        result = await end.apply();
      } catch {
        // Still away: the next pass tries again. The monitor's line says so once, not once per end.
        continue;
      }
      if (result === 'no-session' && startInFlight(sessionId)) continue;
      if (pending.get(sessionId) === end) pending.delete(sessionId);
      log.info({ session: sessionId, result, waited_ms: now() - end.since }, result === 'stored' ? 'a kept call end was stored' : 'a kept call end has no session');
    }
  }

  function flush(): Promise<void> {
    // One pass at a time; a flush asked for meanwhile is a pass right after.
    flushing ??= tryAll().finally(() => {
      flushing = undefined;
      schedule();
    });
    return flushing;
  }

  return {
    add(end) {
      if (closed) return;
      const kept = pending.get(end.sessionId);
      pending.delete(end.sessionId);
      if (pending.size >= maxPending) {
        const oldest = pending.keys().next().value!;
        pending.delete(oldest);
        log.warn({ session: oldest, max: maxPending }, 'too many call ends kept: the oldest was dropped; the lost-calls sweeper closes its session');
      }
      pending.set(end.sessionId, { ...end, since: kept?.since ?? now() });
      schedule();
    },
    flush,
    get size() {
      return pending.size;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      pending.clear();
    },
  };
}
