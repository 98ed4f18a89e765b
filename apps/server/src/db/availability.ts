/**
 * Whether this instance reaches its database, as its queries find it: the first failure that
 * means "unreachable" (unavailable.ts) writes one line, a probe then asks every second, and the
 * first answer writes one line with how long it was gone and tells those waiting for it (the
 * call ends kept while it was away). One line each way, not one per failed query.
 */
import { causeOf, isDatabaseUnavailable } from './unavailable.ts';

/** What the monitor logs through: pino's shape (the app's logger), narrowed to what it uses. */
export interface AvailabilityLog {
  error(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface DatabaseAvailability {
  /** Tells the monitor of a failed query; only a failure that means the database is away counts. */
  noteFailure(error: unknown): void;
  /** False from the first such failure until a probe gets an answer. */
  readonly up: boolean;
  /** Called each time the database answers again after being away; answers a function that removes it. */
  onBack(listener: () => void): () => void;
  /** Stops probing (shutdown). */
  close(): void;
}

export function createDatabaseAvailability(options: {
  /** The most trivial query; throws while the database is away. */
  probe: () => Promise<unknown>;
  log: AvailabilityLog;
  intervalMs?: number;
  now?: () => number;
}): DatabaseAvailability {
  const { probe, log } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const now = options.now ?? Date.now;
  const listeners = new Set<() => void>();
  let up = true;
  let downSince = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void check(), intervalMs);
    timer.unref();
  };

  async function check(): Promise<void> {
    timer = undefined;
    try {
      await probe();
    } catch {
      schedule();
      return;
    }
    if (up || closed) return;
    up = true;
    const seconds = Math.round((now() - downSince) / 100) / 10;
    log.info({ event: 'database_back', down_s: seconds }, `database is back after ${seconds} s`);
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        log.error({ err: error }, 'a listener of the database coming back failed');
      }
    }
  }

  return {
    noteFailure(error) {
      if (!up || closed || !isDatabaseUnavailable(error)) return;
      up = false;
      downSince = now();
      log.error({ event: 'database_unavailable', cause: causeOf(error) }, `database unavailable: ${causeOf(error)}`);
      schedule();
    },
    get up() {
      return up;
    },
    onBack(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
