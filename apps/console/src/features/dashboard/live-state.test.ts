import { type ActiveSession, LIVE_SESSIONS_LIMIT, type StatsLive } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { applyLiveEvent, countByChannel, fromSnapshot, newPerSecond } from './live-state.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, seconds)).toISOString();
const session = (id: string, startedS: number, channel: ActiveSession['channel'] = 'voice'): ActiveSession => ({
  session_id: id,
  tenant_id: 1,
  plan_id: 7,
  channel,
  provider: channel === 'voice' ? 'twilio' : 'webchat',
  direction: 'inbound',
  caller: '+5511999990000',
  called: '+551140004000',
  started_at: at(startedS),
  node_id: null,
  block_type: null,
});
/** A snapshot listing `active`; `running` counts the sessions the server left out of the list too. */
const snapshot = (active: ActiveSession[], perSecond = 0, running = { total: active.length, calls: active.filter((one) => one.channel === 'voice').length }): StatsLive => ({
  at: at(30),
  active,
  active_total: running.total,
  active_calls: running.calls,
  window_s: 10,
  new_per_second: perSecond,
});
const ended = (id: string, channel: ActiveSession['channel'] = 'voice') => ({ type: 'session.ended', session_id: id, channel, disposition: 'retained', hangup_cause: 'normal_clearing', at: at(40) }) as const;

describe("the dashboard's live sessions", () => {
  test('events after the snapshot add, move and remove sessions; a late event of an ended session does not bring it back', () => {
    let state = fromSnapshot(snapshot([session('b', 20, 'chat'), session('a', 10)]));
    expect([...state.sessions.keys()]).toEqual(['a', 'b']);
    state = applyLiveEvent(state, { type: 'session.started', session: session('c', 31) });
    state = applyLiveEvent(state, { type: 'node.entered', session_id: 'c', node_id: 'menu', block_type: 'voice_menu', at: at(32) });
    expect(state.sessions.get('c')).toMatchObject({ node_id: 'menu', block_type: 'voice_menu' });
    expect(countByChannel(state)).toEqual({ calls: 2, chats: 1 });
    state = applyLiveEvent(state, { type: 'session.ended', session_id: 'c', channel: 'voice', disposition: 'retained', hangup_cause: 'normal_clearing', at: at(33) });
    state = applyLiveEvent(state, { type: 'session.started', session: session('c', 31) });
    state = applyLiveEvent(state, { type: 'node.entered', session_id: 'c', node_id: 'bye', block_type: 'hangup', at: at(33) });
    expect([...state.sessions.keys()]).toEqual(['a', 'b']);
    expect(countByChannel(state)).toEqual({ calls: 1, chats: 1 });
  });

  test('a session already in the snapshot is not counted again when its start event arrives after it', () => {
    let state = fromSnapshot(snapshot([session('a', 29)], 0.1));
    state = applyLiveEvent(state, { type: 'session.started', session: session('a', 29) });
    expect(state.sessions.size).toBe(1);
    expect(newPerSecond(state, Date.parse(at(30)))).toBeCloseTo(0.1);
  });

  test("new sessions a second: the snapshot's rate fades out of the window as new starts come in", () => {
    let state = fromSnapshot(snapshot([], 0.5)); // 5 sessions over the 10 s before 12:00:30
    expect(newPerSecond(state, Date.parse(at(30)))).toBeCloseTo(0.5);
    state = applyLiveEvent(state, { type: 'session.started', session: session('x', 34) });
    state = applyLiveEvent(state, { type: 'session.started', session: session('y', 35) });
    // At 12:00:35 half the snapshot's window is still in view (2.5 sessions) plus the 2 new ones.
    expect(newPerSecond(state, Date.parse(at(35)))).toBeCloseTo(0.45);
    // At 12:00:44.5 only y is within the last 10 s.
    expect(newPerSecond(state, Date.parse(at(44)) + 500)).toBeCloseTo(0.1);
    expect(newPerSecond(state, Date.parse(at(50)))).toBe(0);
  });

  describe(`more sessions running than the ${LIVE_SESSIONS_LIMIT} listed`, () => {
    const newest = Array.from({ length: LIVE_SESSIONS_LIMIT }, (_, index) => session(`s${index}`, 0, index % 2 === 0 ? 'voice' : 'chat'));
    // 3,412 running: the 200 listed (100 calls, 100 chats) and 3,212 more, 2,000 of them calls.
    const capped = () => fromSnapshot(snapshot(newest, 0, { total: 3412, calls: 2100 }));

    test('a new session is listed in place of the oldest, and the counts take every running session', () => {
      let state = capped();
      expect(countByChannel(state)).toEqual({ calls: 2100, chats: 1312 });
      state = applyLiveEvent(state, { type: 'session.started', session: session('new', 31, 'chat') });
      expect(state.sessions.size).toBe(LIVE_SESSIONS_LIMIT);
      expect(state.sessions.has('s0')).toBe(false);
      expect([...state.sessions.keys()].at(-1)).toBe('new');
      expect(state.running.total).toBe(3413);
      expect(countByChannel(state)).toEqual({ calls: 2100, chats: 1313 });
    });

    test('ends count down whether the session is listed or not, and each only once', () => {
      let state = capped();
      state = applyLiveEvent(state, ended('s1', 'chat'));
      state = applyLiveEvent(state, ended('s1', 'chat'));
      expect(state.sessions.has('s1')).toBe(false);
      expect(countByChannel(state)).toEqual({ calls: 2100, chats: 1311 });
      // Not listed: counted down on the channel its end names.
      state = applyLiveEvent(state, ended('older-chat', 'chat'));
      expect(state.running.total).toBe(3410);
      expect(countByChannel(state)).toEqual({ calls: 2100, chats: 1310 });
      state = applyLiveEvent(state, ended('older-call'));
      expect(countByChannel(state)).toEqual({ calls: 2099, chats: 1310 });
    });

    test('with every running session listed, the end of one not listed changes no count', () => {
      let state = fromSnapshot(snapshot([session('a', 10), session('b', 20, 'chat')]));
      state = applyLiveEvent(state, ended('gone-before-the-snapshot'));
      expect(countByChannel(state)).toEqual({ calls: 1, chats: 1 });
    });
  });
});
