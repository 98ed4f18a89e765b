/**
 * The dashboard's sessions running now: the `/stats/live` snapshot, then each event of
 * `/stats/live/events` folded in. Pure, so that the order of a snapshot and events arriving around
 * a reconnection is tested without a server.
 */
import type { ActiveSession, LiveStatsEvent, StatsLive } from '@voxplan/contracts';
import { LIVE_SESSIONS_LIMIT } from '@voxplan/contracts/live-limit';

export interface LiveState {
  /** By session id, in the order they started: the `LIVE_SESSIONS_LIMIT` most recent at most. */
  sessions: ReadonlyMap<string, ActiveSession>;
  /** Every session running, listed or not, and how many of them are calls. */
  running: { total: number; calls: number };
  /** The snapshot's rate and when it was taken, fading out of the window as time passes. */
  snapshot: { atMs: number; perSecond: number; windowS: number };
  /** Start times (ms) of the sessions started since the snapshot, within the window. */
  startedMs: readonly number[];
  /** Sessions that ended since the snapshot: an event of theirs arriving late must not bring them back. */
  ended: ReadonlySet<string>;
}

export const emptyLiveState: LiveState = { sessions: new Map(), running: { total: 0, calls: 0 }, snapshot: { atMs: 0, perSecond: 0, windowS: 60 }, startedMs: [], ended: new Set() };

/** A fresh state from a snapshot: what ran before it is forgotten (a reconnection may have missed events). */
export function fromSnapshot(live: StatsLive): LiveState {
  const sorted = [...live.active].sort((a, b) => a.started_at.localeCompare(b.started_at));
  return {
    sessions: new Map(sorted.map((session) => [session.session_id, session])),
    running: { total: Math.max(live.active_total, sorted.length), calls: live.active_calls },
    snapshot: { atMs: Date.parse(live.at), perSecond: live.new_per_second, windowS: live.window_s },
    startedMs: [],
    ended: new Set(),
  };
}

export function applyLiveEvent(state: LiveState, event: LiveStatsEvent): LiveState {
  switch (event.type) {
    case 'session.started': {
      const id = event.session.session_id;
      if (state.sessions.has(id) || state.ended.has(id)) return state;
      const sessions = new Map(state.sessions).set(id, event.session);
      // As the server lists them: the newest, so the oldest listed makes way (it still runs, and counts).
      if (sessions.size > LIVE_SESSIONS_LIMIT) sessions.delete(sessions.keys().next().value!);
      const startedAt = Date.parse(event.session.started_at);
      // Only the window's worth is kept: a dashboard left open all day must not grow.
      const startedMs = [...state.startedMs.filter((ms) => ms > startedAt - state.snapshot.windowS * 1000), startedAt];
      const isCall = event.session.channel === 'voice';
      return { ...state, sessions, running: { total: state.running.total + 1, calls: state.running.calls + (isCall ? 1 : 0) }, startedMs };
    }
    case 'node.entered': {
      const session = state.sessions.get(event.session_id);
      if (!session) return state;
      return { ...state, sessions: new Map(state.sessions).set(event.session_id, { ...session, node_id: event.node_id, block_type: event.block_type }) };
    }
    case 'session.ended': {
      if (state.ended.has(event.session_id)) return state;
      const ended = new Set(state.ended).add(event.session_id);
      const listed = state.sessions.has(event.session_id);
      // Every running session listed and this one not among them: it was not counted (it ended before the snapshot was taken).
      if (!listed && state.running.total <= state.sessions.size) return { ...state, ended };
      const sessions = new Map(state.sessions);
      sessions.delete(event.session_id);
      const isCall = event.channel === 'voice';
      return { ...state, sessions, running: { total: state.running.total - 1, calls: state.running.calls - (isCall ? 1 : 0) }, ended };
    }
    // Campaign counts are the campaigns screen's; the sessions they place arrive as session events.
    case 'campaign.progress':
      return state;
    // A rollout rolled back by its rule is the editor's to show; the sessions it changes are not counted here.
    case 'rollout.auto_rollback':
      return state;
  }
}

/**
 * New sessions a second at `nowMs`, over the snapshot's window: those started since the snapshot
 * inside the window, plus the snapshot's own count for the part of its window still inside it.
 */
export function newPerSecond(state: LiveState, nowMs: number): number {
  const { atMs, perSecond, windowS } = state.snapshot;
  const windowMs = windowS * 1000;
  const since = nowMs - windowMs;
  const recent = state.startedMs.filter((ms) => ms > since && ms <= nowMs).length;
  const snapshotShare = Math.max(0, Math.min(1, (atMs - since) / windowMs));
  return (recent + perSecond * windowS * snapshotShare) / windowS;
}

/** The counts the dashboard shows beside the list: every running session, listed or not. */
export function countByChannel(state: LiveState): { calls: number; chats: number } {
  const { total, calls } = state.running;
  return { calls, chats: total - calls };
}
