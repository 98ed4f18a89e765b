/**
 * The conversations API as the console reads it: the contract's types (docs/conversations.md),
 * imported as types only, so that zod stays out of the menu's count and the dashboard. The few
 * lists the screen iterates are written here for the same reason; `satisfies` keeps them the
 * contract's.
 */
import { customerLabel } from '@voxplan/contracts/customer-label';
import type { AgentStatus, ConversationAttachment, ConversationEvent as ContractEvent, ConversationRow, ConversationStatus } from '@voxplan/contracts';

export type {
  AgentStatus as PresenceStatus,
  ConversationDetail,
  ConversationMessage,
  ConversationOutcome,
  ConversationRow,
  ConversationStatus,
  ConversationSummary,
} from '@voxplan/contracts';

export type MessageAttachment = ConversationAttachment;
export type CloseOutcome = 'resolved' | 'back_to_plan';
export type ConversationEvent = ContractEvent;
export type ConversationEventType = ContractEvent['type'];

export const conversationStatuses = ['waiting', 'open', 'closed'] as const satisfies readonly ConversationStatus[];
export const presenceStatuses = ['online', 'away', 'offline'] as const satisfies readonly AgentStatus[];
export const conversationEventTypes = [
  'conversation.waiting',
  'conversation.taken',
  'conversation.message',
  'conversation.closed',
  'conversation.transferred',
  'conversation.typing',
  'conversation.customer_typing',
] as const satisfies readonly ConversationEventType[];

/** The customer's name where the chat knows it (a saved reply's `{{name}}`), else null: only a name, never the e-mail. */
export function customerNameOf(row: Pick<ConversationRow, 'customer'>): string | null {
  const name = row.customer?.name;
  return typeof name === 'string' && name.trim() !== '' ? name : null;
}

/** Whom the row is about, as a person reads it: the customer's name (or e-mail), else the caller, else the protocol. */
export function callerOf(row: Pick<ConversationRow, 'caller' | 'protocol' | 'customer'>, unknown: string): string {
  return customerLabel(row.customer) || row.caller || row.protocol || unknown;
}
