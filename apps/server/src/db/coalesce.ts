/**
 * Shared runs of one check: the read cache's pings to the bus (instance-bus.ts) and the sign-in's
 * re-checks of the open event streams' sign-ins (plugins/auth.ts) are made once for every caller of the same moment.
 */

/**
 * The least time between two of the read cache's pings. Under load they ran back to back, one a
 * round trip (some 400 a second, a third of a call's statements); spaced, the reads of those
 * milliseconds share one, for a few milliseconds more on a kept answer. Alone, a ping goes at once.
 */
export const PING_SPACING_MS = 5;

/**
 * Runs `check` for every caller, sharing runs: a caller gets the result of a run that began after
 * it called (the one in flight began before, so it waits for the next, which every caller that
 * came meanwhile shares). With `spacingMs`, a run begins no sooner than that after the one before
 * began: under load the callers of those milliseconds share one run instead of one each round trip.
 */
export function coalesce(check: () => Promise<boolean>, spacingMs = 0): () => Promise<boolean> {
  let running: Promise<boolean> | undefined;
  let next: Promise<boolean> | undefined;
  let lastBegan = -Infinity;
  const runNext = () => {
    next = undefined;
    return run();
  };
  const run = (): Promise<boolean> => {
    if (!running) {
      const wait = lastBegan + spacingMs - performance.now();
      if (wait > 0) {
        next ??= new Promise<void>((resolve) => setTimeout(resolve, wait)).then(runNext);
        return next;
      }
      lastBegan = performance.now();
      running = check().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running.then(runNext, runNext);
    return next;
  };
  return run;
}
