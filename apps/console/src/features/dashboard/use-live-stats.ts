import type { StatsLive } from '@voxplan/contracts';
import { useEffect, useState } from 'react';
import { api } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { followLiveFeed, type LiveFeedSource, type LiveStatus } from './live-feed.ts';
import { publishRollback } from './live-rollbacks.ts';
import { emptyLiveState, type LiveState } from './live-state.ts';

/** The feed through the API client: its token (refreshed when stale), language and tenant headers. */
const apiSource: LiveFeedSource = {
  async open(signal) {
    const response = await api.stream('/stats/live/events', { signal });
    if (!response.body) throw new Error('no event stream');
    return response.body;
  },
  snapshot: (signal) => api.get<StatsLive>('/stats/live', { signal }),
};

/**
 * The sessions running now, kept live by the server's events (`live-feed.ts`). EventSource cannot
 * send the Authorization header, so the stream is read with fetch. Stops on unmount and starts
 * over when the working tenant changes. The rollbacks it carries go to the notifications
 * (live-rollbacks.ts): the screen that shows it opens no second stream.
 */
export function useLiveStats(): { state: LiveState; status: LiveStatus } {
  const { tenantId } = useAuth();
  const [state, setState] = useState<LiveState>(emptyLiveState);
  const [status, setStatus] = useState<LiveStatus>('connecting');
  useEffect(() => {
    const stop = new AbortController();
    setState(emptyLiveState);
    void followLiveFeed(apiSource, { update: setState, status: setStatus, rollback: publishRollback }, stop.signal);
    return () => stop.abort();
  }, [tenantId]);
  return { state, status };
}
