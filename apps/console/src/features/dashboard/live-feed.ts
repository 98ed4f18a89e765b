/**
 * Following `/stats/live/events` from its snapshot, apart from React so that the order of a
 * snapshot and events around a reconnection is tested with streams made in the test.
 */
import type { LiveStatsEvent, RolloutAutoRollbackEvent, StatsLive } from '@voxplan/contracts';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { applyLiveEvent, fromSnapshot, type LiveState } from './live-state.ts';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

export interface LiveFeedSource {
  /** Opens the event stream: its body once the server has answered. */
  open(signal: AbortSignal): Promise<ReadableStream<Uint8Array<ArrayBuffer>>>;
  snapshot(signal: AbortSignal): Promise<StatsLive>;
}

export interface LiveFeedListener {
  update(change: (current: LiveState) => LiveState): void;
  status(status: LiveStatus): void;
  /** A rollout rolled back by its rule: the feed carries it to the console's notifications (one stream per tab). */
  rollback?(event: RolloutAutoRollbackEvent): void;
}

const eventTypes: readonly string[] = ['session.started', 'node.entered', 'session.ended'] satisfies LiveStatsEvent['type'][];
/** The server sends a ping comment every 15 s: three missed and the connection is taken for dead (a proxy or a sleeping laptop may drop it silently). */
export const SILENCE_MS = 45_000;

/** Back-off before reconnection `attempt` (0 first): 1 s doubling up to 30 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** attempt);
}

export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * One connection of an event stream: aborted by `stop`, or by a silence longer than SILENCE_MS
 * (`heard` restarts the clock at each message or ping); `dispose` once it is over.
 */
export function watchedConnection(stop: AbortSignal): { connection: AbortController; abort(): void; heard(): void; dispose(): void } {
  const connection = new AbortController();
  const abort = () => connection.abort();
  stop.addEventListener('abort', abort);
  let silence: ReturnType<typeof setTimeout> | undefined;
  return {
    connection,
    abort,
    heard() {
      clearTimeout(silence);
      silence = setTimeout(abort, SILENCE_MS);
    },
    dispose() {
      clearTimeout(silence);
      stop.removeEventListener('abort', abort);
    },
  };
}

/**
 * Runs `once` (one connection) again and again until `stop` aborts, waiting between (1 s, 2 s, 4 s…
 * up to 30 s; from 1 s again after a connection that stayed up a while), and says so to `status`.
 */
export async function keepFollowing(once: () => Promise<void>, status: (status: LiveStatus) => void, stop: AbortSignal, wait = pause): Promise<void> {
  status('connecting');
  for (let attempt = 0; !stop.aborted; ) {
    const began = Date.now();
    try {
      await once();
    } catch {
      // A refused or broken connection: tried again below, as one that ended.
    }
    if (stop.aborted) return;
    status('reconnecting');
    if (Date.now() - began > SILENCE_MS) attempt = 0;
    await wait(reconnectDelayMs(attempt++), stop);
  }
}

/**
 * One connection: the stream is opened first and the snapshot asked next, so that no event falls
 * between them (those arriving before the snapshot wait for it, then apply over it). Ends when the
 * stream ends, fails or stays silent too long.
 */
async function followOnce(source: LiveFeedSource, listener: LiveFeedListener, stop: AbortSignal): Promise<void> {
  const { connection, abort: abortConnection, heard, dispose } = watchedConnection(stop);
  try {
    const body = await source.open(connection.signal);
    heard();
    const messages = body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream({ onComment: heard }))
      .getReader();
    connection.signal.addEventListener('abort', () => void messages.cancel().catch(() => undefined));
    let waiting: LiveStatsEvent[] | undefined = [];
    const snapshot = source.snapshot(connection.signal).then((live) => {
      const early = waiting ?? [];
      waiting = undefined;
      listener.update(() => early.reduce(applyLiveEvent, fromSnapshot(live)));
      listener.status('live');
    });
    snapshot.catch(abortConnection);
    for (;;) {
      const { value: message, done } = await messages.read();
      if (done) break;
      heard();
      if (message.event === 'rollout.auto_rollback') listener.rollback?.(JSON.parse(message.data) as RolloutAutoRollbackEvent);
      if (!message.event || !eventTypes.includes(message.event)) continue;
      const event = JSON.parse(message.data) as LiveStatsEvent;
      if (waiting) waiting.push(event);
      else listener.update((current) => applyLiveEvent(current, event));
    }
    await snapshot;
  } finally {
    dispose();
  }
}

/**
 * Follows the live feed until `stop` aborts: after a dropped connection it waits (1 s, 2 s, 4 s…
 * up to 30 s; from 1 s again after a connection that stayed up a while) and starts over from a new
 * snapshot, since events may have been missed meanwhile.
 */
export function followLiveFeed(source: LiveFeedSource, listener: LiveFeedListener, stop: AbortSignal, wait = pause): Promise<void> {
  return keepFollowing(() => followOnce(source, listener, stop), (status) => listener.status(status), stop, wait);
}
