import type { SessionRuntime } from './sessions.service.ts';

export interface Sweeper {
  /** No new pass starts; resolves once the pass in progress, if any, is done. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `intervalMs`, one pass at a time: a pass still running when the next is due
 * makes that one skip. The chat sweeper and the retention job (retention.ts) both run so. `signal`
 * aborts when the sweeper stops: a long pass ends at its next batch instead of holding the shutdown.
 */
export function startSweeper(pass: (signal: AbortSignal) => Promise<unknown>, options: { intervalMs: number; onError?: (error: unknown) => void }): Sweeper {
  let running: Promise<void> | undefined;
  const stopping = new AbortController();
  const tick = () => {
    if (running || stopping.signal.aborted) return;
    running = pass(stopping.signal)
      .then(
        () => {},
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  // A sweeper never keeps the process alive by itself.
  timer.unref();
  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Runs the runtime's chat sweep every `intervalMs`. Safe beside sweepers of other instances: each
 * timeout is claimed with a conditional update before it is run (docs/sessions.md, "The chat sweeper").
 */
export function startChatSweeper(runtime: Pick<SessionRuntime, 'sweepTimeouts'>, options: { intervalMs: number; onError?: (error: unknown) => void }): Sweeper {
  return startSweeper(() => runtime.sweepTimeouts(), options);
}
