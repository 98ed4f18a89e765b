/**
 * The conversations API as the console reads it (docs/conversations.md). Plain types: the screen
 * only reads what the server sends, and zod stays out of its chunk.
 */
import type { TranscriptEntry } from '@voxplan/engine';

export const conversationStatuses = ['waiting', 'open', 'closed'] as const;
export type ConversationStatus = (typeof conversationStatuses)[number];
export type ConversationOutcome = 'resolved' | 'back_to_plan' | 'no_answer' | 'busy' | 'transferred';
export type CloseOutcome = Extract<ConversationOutcome, 'resolved' | 'back_to_plan'>;
export const presenceStatuses = ['online', 'away', 'offline'] as const;
export type PresenceStatus = (typeof presenceStatuses)[number];

export interface NamedRef {
  id: number | string;
  name: string;
}

export interface MessageAttachment {
  url: string;
  name?: string;
  content_type?: string;
}

export interface ConversationMessage {
  id: number | string;
  conversation_id?: number | string;
  author: 'customer' | 'agent' | 'bot' | 'system';
  agent_id?: number | string | null;
  agent_name?: string | null;
  text: string;
  attachment?: MessageAttachment | null;
  created_at: string;
}

export interface ConversationRow {
  id: number | string;
  status: ConversationStatus;
  queue: NamedRef;
  agent: NamedRef | null;
  channel: string;
  provider: string;
  caller: string | null;
  protocol: string | null;
  waiting_since: string;
  taken_at: string | null;
  closed_at: string | null;
  outcome: ConversationOutcome | null;
  last_message: { author: ConversationMessage['author']; text: string; created_at: string } | null;
  unread: number;
}

export interface ConversationDetail extends ConversationRow {
  messages: ConversationMessage[];
  bot_transcript: TranscriptEntry[];
  variables: Record<string, unknown>;
  plan: NamedRef | null;
}

export interface ConversationSummary {
  waiting: number;
  unread: number;
  queues: { id: number | string; name: string; waiting: number; longest_wait_s: number; agents_online: number }[];
}

export const conversationEventTypes = [
  'conversation.waiting',
  'conversation.taken',
  'conversation.message',
  'conversation.closed',
  'conversation.transferred',
  'conversation.typing',
] as const;
export type ConversationEventType = (typeof conversationEventTypes)[number];

/** One event of `/conversations/events`: the conversation it is about, with its row or its message. */
export interface ConversationEvent {
  type: ConversationEventType;
  conversation_id: number | string;
  conversation?: ConversationRow;
  message?: ConversationMessage;
  /** `conversation.typing`: who is typing (the customer, or an agent). */
  author?: 'customer' | 'agent';
}

/** Channels whose customer can receive a file from the agent (docs/conversations.md). */
export const channelsWithAttachments: readonly string[] = ['whatsapp', 'webchat'];
