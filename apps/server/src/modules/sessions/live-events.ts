/**
 * Live session events: what the dashboard shows as calls and chats go (issue 17). Published on the
 * instance bus once a turn is stored, so a subscriber on any instance hears the sessions of every
 * instance (in process on SQLite, over LISTEN/NOTIFY on PostgreSQL). They are a live view, not a
 * record: an instance that is down or reconnecting misses them, and the reports stay the truth.
 */
import type { Session } from '@voxplan/engine';
import type { InstanceBus } from '../../db/instance-bus.ts';
import type { StoredOutcome } from './sessions.repository.ts';

export const LIVE_SESSIONS_TOPIC = 'sessions';

interface LiveSessionBase {
  session_id: string;
  tenant_id: number;
  /** The plan the session started in. */
  plan_id: number;
  /** The session's revision after the turn that made the event: orders events of one session across instances. */
  revision: number;
  is_test: boolean;
  at: string;
}

export type LiveSessionEvent =
  | (LiveSessionBase & { type: 'session.started'; channel: Session['channel']; provider: Session['provider']; direction: Session['direction']; caller: string; called: string })
  /** `entered_plan_id`: the plan the block belongs to (another than `plan_id` inside a `call_plan`). */
  | (LiveSessionBase & { type: 'node.entered'; entered_plan_id: number; node_id: string; block_type: string })
  | (LiveSessionBase & { type: 'session.ended'; channel: Session['channel']; disposition: Session['disposition']; hangup_cause: Session['hangup_cause'] });

/** The events of one stored turn, in order: started (first turn), each block entered, ended. */
export function liveEventsOf(before: Session | null, session: Session, outcome: StoredOutcome, isTest: boolean): LiveSessionEvent[] {
  const base = { session_id: session.id, tenant_id: session.tenant_id, plan_id: session.plan_id, revision: outcome.revision, is_test: isTest };
  const events: LiveSessionEvent[] = [];
  if (before === null) {
    const { channel, provider, direction, caller, called } = session;
    events.push({ ...base, type: 'session.started', at: session.started_at, channel, provider, direction, caller, called });
  }
  for (const entry of outcome.entered) {
    events.push({ ...base, type: 'node.entered', at: entry.at, entered_plan_id: entry.plan_id, node_id: entry.node_id, block_type: entry.type });
  }
  if (before?.status !== 'ended' && session.status === 'ended') {
    events.push({
      ...base,
      type: 'session.ended',
      at: session.ended_at ?? session.started_at,
      channel: session.channel,
      disposition: session.disposition,
      hangup_cause: session.hangup_cause,
    });
  }
  return events;
}

/**
 * Events of one turn that travel in one bus message. On PostgreSQL each message is a notification
 * that every instance's listening connection receives and parses, before the read cache's next
 * ping can answer: a call of 18 blocks sent about 20 of them. A few together stay far below
 * NOTIFY's 8,000 bytes (an event is a few hundred).
 */
const EVENTS_PER_MESSAGE = 6;

/**
 * `events` is called only when someone may hear them: on SQLite with no dashboard open, a turn
 * makes none. A turn's events go in messages of a few events each, in order.
 */
export function publishLiveEvents(bus: InstanceBus, events: () => readonly LiveSessionEvent[]): void {
  if (!bus.heard(LIVE_SESSIONS_TOPIC)) return;
  const all = events();
  for (let index = 0; index < all.length; index += EVENTS_PER_MESSAGE) bus.publish(LIVE_SESSIONS_TOPIC, all.slice(index, index + EVENTS_PER_MESSAGE));
}

/**
 * Calls `listener` with the live events of every instance from now on; `tenantId` keeps those of
 * one tenant. Answers the function that stops it.
 */
export function subscribeLiveSessions(bus: InstanceBus, listener: (event: LiveSessionEvent) => void, filter: { tenantId?: number } = {}): () => void {
  return bus.subscribe(LIVE_SESSIONS_TOPIC, (message) => {
    // Only instances of this server publish on the topic: a few events of one turn, in order.
    for (const event of message as LiveSessionEvent[]) {
      if (filter.tenantId === undefined || event.tenant_id === filter.tenantId) listener(event);
    }
  });
}
