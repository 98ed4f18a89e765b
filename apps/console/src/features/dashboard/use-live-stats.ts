import type { LiveStatsEvent, StatsLive } from '@voxplan/contracts';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { useEffect, useState } from 'react';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { applyLiveEvent, emptyLiveState, fromSnapshot, type LiveState } from './live-state.ts';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

const eventTypes: readonly string[] = ['session.started', 'node.entered', 'session.ended'] satisfies LiveStatsEvent['type'][];
/** The server sends a ping comment every 15 s: three missed and the connection is taken for dead (a proxy or a sleeping laptop may drop it silently). */
const SILENCE_MS = 45_000;
/** Back-off between reconnections: 1 s doubling up to 30 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** attempt);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Follows `/stats/live/events` from its snapshot: the stream is opened first and the snapshot
 * asked next, so no event falls between them (those arriving before the snapshot wait for it). On
 * a dropped connection it reconnects with back-off and starts again from a new snapshot, since
 * events may have been missed. EventSource cannot send the Authorization header, so the stream is
 * read with fetch. Stops on unmount and starts over when the working tenant changes.
 */
export function useLiveStats(): { state: LiveState; status: LiveStatus } {
  const { tenantId } = useAuth();
  const [state, setState] = useState<LiveState>(emptyLiveState);
  const [status, setStatus] = useState<LiveStatus>('connecting');

  useEffect(() => {
    const stop = new AbortController();
    setState(emptyLiveState);
    setStatus('connecting');

    async function follow(): Promise<void> {
      const connection = new AbortController();
      const abortConnection = () => connection.abort();
      stop.signal.addEventListener('abort', abortConnection);
      let silence: ReturnType<typeof setTimeout> | undefined;
      const heard = () => {
        clearTimeout(silence);
        silence = setTimeout(abortConnection, SILENCE_MS);
      };
      try {
        const response = await api.stream('/stats/live/events', { signal: connection.signal });
        if (!response.body) throw new Error('no event stream');
        heard();
        const events = response.body
          .pipeThrough(new TextDecoderStream())
          .pipeThrough(new EventSourceParserStream({ onComment: heard }))
          .getReader();
        let waiting: LiveStatsEvent[] | undefined = [];
        const snapshot = api.get<StatsLive>('/stats/live', { signal: connection.signal }).then((live) => {
          const early = waiting ?? [];
          waiting = undefined;
          setState(early.reduce(applyLiveEvent, fromSnapshot(live)));
          setStatus('live');
        });
        snapshot.catch(abortConnection);
        for (;;) {
          const { value: message, done } = await events.read();
          if (done) break;
          heard();
          if (!message.event || !eventTypes.includes(message.event)) continue;
          const event = JSON.parse(message.data) as LiveStatsEvent;
          if (waiting) waiting.push(event);
          else setState((current) => applyLiveEvent(current, event));
        }
        await snapshot;
      } finally {
        clearTimeout(silence);
        stop.signal.removeEventListener('abort', abortConnection);
      }
    }

    void (async () => {
      for (let attempt = 0; !stop.signal.aborted; ) {
        const began = Date.now();
        try {
          await follow();
        } catch {
          // A refused or broken connection: tried again below, as one that ended.
        }
        if (stop.signal.aborted) return;
        setStatus('reconnecting');
        // A connection that stayed up a while starts the back-off over.
        attempt = Date.now() - began > SILENCE_MS ? 0 : attempt + 1;
        await pause(reconnectDelayMs(attempt), stop.signal);
      }
    })();
    return () => stop.abort();
  }, [tenantId]);

  return { state, status };
}
