import type { ActiveSession, StatsLive } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { followLiveFeed, type LiveFeedSource, type LiveStatus, reconnectDelayMs } from './live-feed.ts';
import { emptyLiveState, type LiveState } from './live-state.ts';

const session = (id: string): ActiveSession => ({
  session_id: id,
  tenant_id: 1,
  plan_id: 3,
  channel: 'voice',
  provider: 'twilio',
  direction: 'inbound',
  caller: '+5511999990000',
  called: '+551140004000',
  started_at: new Date().toISOString(),
  node_id: null,
  block_type: null,
});
const snapshotOf = (...ids: string[]): StatsLive => ({
  at: new Date().toISOString(),
  active: ids.map(session),
  active_total: ids.length,
  active_calls: ids.length,
  window_s: 60,
  new_per_second: 0,
});
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A server stream the test writes to and ends. */
function serverStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>;
  const body = new ReadableStream<Uint8Array<ArrayBuffer>>({ start: (c) => void (controller = c) });
  return { body, send: (text: string) => controller.enqueue(new TextEncoder().encode(text)), end: () => controller.close() };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe("the dashboard's live feed", () => {
  test('events sent before the snapshot arrives apply over it; after a dropped stream it waits, reconnects and starts again from a new snapshot', async () => {
    const streams = [serverStream(), serverStream()];
    const snapshots = [deferred<StatsLive>(), deferred<StatsLive>()];
    const order: string[] = [];
    const source: LiveFeedSource = {
      open: async () => {
        order.push('open');
        return streams[order.filter((step) => step === 'open').length - 1]!.body;
      },
      snapshot: () => {
        order.push('snapshot');
        return snapshots[order.filter((step) => step === 'snapshot').length - 1]!.promise;
      },
    };
    let state: LiveState = emptyLiveState;
    const statuses: LiveStatus[] = [];
    const waits: number[] = [];
    const rollbacks: unknown[] = [];
    const stop = new AbortController();
    const following = followLiveFeed(
      source,
      { update: (change) => (state = change(state)), status: (status) => statuses.push(status), rollback: (event) => rollbacks.push(event) },
      stop.signal,
      async (ms) => void waits.push(ms),
    );

    await until(() => order.length === 2);
    expect(order).toEqual(['open', 'snapshot']);
    // Sent while the snapshot is on its way: b started, a (in the snapshot) moved to the menu.
    streams[0]!.send(': connected\n\n');
    streams[0]!.send(sse('session.started', { type: 'session.started', session: session('b') }));
    streams[0]!.send(sse('node.entered', { type: 'node.entered', session_id: 'a', node_id: 'menu', block_type: 'voice_menu', at: new Date().toISOString() }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.sessions.size).toBe(0);
    snapshots[0]!.resolve(snapshotOf('a'));
    await until(() => state.sessions.size === 2);
    expect(state.sessions.get('a')).toMatchObject({ node_id: 'menu', block_type: 'voice_menu' });
    expect(statuses).toEqual(['connecting', 'live']);
    streams[0]!.send(sse('session.ended', { type: 'session.ended', session_id: 'b', channel: 'voice', disposition: 'retained', hangup_cause: null, at: new Date().toISOString() }));
    await until(() => !state.sessions.has('b'));
    // A rollback on the same stream goes to the notifications (one stream per tab), not to the sessions.
    const rollback = { type: 'rollout.auto_rollback', rollout_id: 9, plan_id: 3, plan_name: 'Front desk', base_version: 2, candidate_version: 3 };
    streams[0]!.send(sse('rollout.auto_rollback', rollback));
    await until(() => rollbacks.length === 1);
    expect(rollbacks).toEqual([rollback]);
    expect([...state.sessions.keys()]).toEqual(['a']);

    // The connection drops: a and b may have changed unseen, so the new snapshot replaces all.
    streams[0]!.end();
    await until(() => order.length === 4);
    expect(statuses).toEqual(['connecting', 'live', 'reconnecting']);
    expect(waits).toEqual([reconnectDelayMs(0)]);
    snapshots[1]!.resolve(snapshotOf('c'));
    await until(() => statuses.length === 4);
    expect([...state.sessions.keys()]).toEqual(['c']);

    stop.abort();
    await following;
    expect(statuses.at(-1)).toBe('live');
  });

  test('a refused stream is tried again ever more slowly, up to 30 s', async () => {
    const stop = new AbortController();
    const waits: number[] = [];
    const source: LiveFeedSource = {
      open: () => Promise.reject(new Error('503')),
      snapshot: () => Promise.reject(new Error('not asked')),
    };
    await followLiveFeed(source, { update: () => undefined, status: () => undefined }, stop.signal, async (ms) => {
      waits.push(ms);
      if (waits.length === 7) stop.abort();
    });
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});
