/**
 * Live conversation events (docs/conversations.md, "Live"): published on the instance bus once what
 * they tell is committed, so that an agent's stream on any instance hears a customer's message that
 * arrived on another, and the web chat's long poll wakes for an agent's message. Like the live
 * session events, a view and not a record: the tables stay the truth.
 */
import type { ConversationEvent } from '@voxplan/contracts';
import type { InstanceBus } from '../../db/instance-bus.ts';

export const CONVERSATIONS_TOPIC = 'conversations';

/** An event with what the listeners filter on: the tenant, and the session the widget polls. */
export interface ConversationEnvelope {
  tenant_id: number;
  session_id: string;
  event: ConversationEvent;
}

export function publishConversationEvent(bus: InstanceBus, envelope: ConversationEnvelope): void {
  bus.publish(CONVERSATIONS_TOPIC, envelope);
}

/** Calls `listener` with the conversation events of every instance from now on; `tenantId` keeps one tenant's. */
export function subscribeConversations(bus: InstanceBus, listener: (envelope: ConversationEnvelope) => void, filter: { tenantId?: number } = {}): () => void {
  return bus.subscribe(CONVERSATIONS_TOPIC, (message) => {
    // Only instances of this server publish on the topic.
    const envelope = message as ConversationEnvelope;
    if (filter.tenantId === undefined || envelope.tenant_id === filter.tenantId) listener(envelope);
  });
}
