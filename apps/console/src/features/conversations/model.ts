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
  id: number;
  name: string;
}

/** A file the agent links: an https URL the customer's channel fetches. */
export interface MessageAttachment {
  url: string;
  content_type: string;
  name: string;
}

export interface ConversationMessage {
  id: number;
  conversation_id: number;
  author: 'customer' | 'agent' | 'bot' | 'system';
  /** The agent who wrote it (author `agent`), by name as the customer sees it. */
  agent: NamedRef | null;
  text: string;
  attachment: MessageAttachment | null;
  created_at: string;
}

export interface ConversationRow {
  id: number;
  session_id: string;
  status: ConversationStatus;
  /** Null once the queue destination is removed. */
  queue: NamedRef | null;
  agent: NamedRef | null;
  channel: string;
  provider: string;
  caller: string;
  protocol: string;
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
  plan: NamedRef;
}

export interface ConversationSummary {
  waiting: number;
  unread: number;
  queues: { id: number; name: string; waiting: number; longest_wait_s: number; agents_online: number }[];
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

/** One event of `/conversations/events`: the conversation it is about, with its row, its message, or who types. */
export interface ConversationEvent {
  type: ConversationEventType;
  conversation_id: number;
  conversation?: ConversationRow;
  message?: ConversationMessage;
  /** `conversation.typing` by an agent (another console's); absent when the customer types. */
  agent?: NamedRef;
}

/** Channels whose customer can receive a file from the agent (docs/conversations.md). */
export const channelsWithAttachments: readonly string[] = ['whatsapp', 'webchat'];
