import type { SessionRuntime } from './sessions.service.ts';

export interface ChatSweeper {
  /** No new pass starts; resolves once the pass in progress, if any, is done. */
  stop(): Promise<void>;
}

/**
 * Runs the runtime's chat sweep every `intervalMs`, one pass at a time. Safe beside sweepers of
 * other instances: each timeout is claimed with a conditional update before it is run
 * (docs/sessions.md, "The chat sweeper").
 */
export function startChatSweeper(runtime: Pick<SessionRuntime, 'sweepTimeouts'>, options: { intervalMs: number; onError?: (error: unknown) => void }): ChatSweeper {
  let running: Promise<void> | undefined;
  let isStopped = false;
  const tick = () => {
    if (running || isStopped) return;
    running = runtime
      .sweepTimeouts()
      .then(
        () => {},
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  // The sweeper never keeps the process alive by itself.
  timer.unref();
  return {
    async stop() {
      isStopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
