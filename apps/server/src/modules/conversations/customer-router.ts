/**
 * The conversation router (docs/conversations.md, "The customer's side"): the one place the chat
 * channels ask where a customer's message goes, and through which a person's message reaches the
 * customer, through the chat's channel (`ctx.channels`, the port of context.ts the channels fill
 * in). It is conversation code, not a provider's, so it sits with the conversations, below the
 * channels. While a conversation holds a chat, the customer's messages go to it (the agent's
 * console, or the outside desk) instead of the plan; the plan has the chat again once it is closed.
 */
import type { ConversationAttachment, ConversationMessage } from '@voxplan/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { ConversationTable } from '../../db/schema.ts';
import type { Database } from '../../db/schema.ts';
import { type AttachmentFile, storeAttachment } from './attachment-store.ts';
import { activeConversationOf, addMessage, type ConversationContext, publish } from './conversation-records.ts';

/** Whether the channel delivered this message before: its file is not fetched again. */
async function hasMessage(db: Kysely<Database>, conversationId: number, externalId: string): Promise<boolean> {
  const row = await db.selectFrom('conversation_messages').select('id').where('conversation_id', '=', conversationId).where('external_id', '=', externalId).executeTakeFirst();
  return row !== undefined;
}

export interface CustomerMessage {
  text: string;
  attachment?: ConversationAttachment | null;
  /**
   * The customer's file, fetched only when a conversation takes the message and has not stored it
   * before (a redelivery); stored with the conversation's files. Null when it could not be fetched:
   * `attachment` (its type and name) is shown instead.
   */
  file?: () => Promise<AttachmentFile | null>;
  /** The channel's id of the message: a redelivery is stored once. */
  external_id: string;
}

/** Told of a customer's message a conversation took, after it is stored (the outside desk's events). */
export type CustomerMessageListener = (conversation: Selectable<ConversationTable>, message: ConversationMessage) => Promise<void>;

/**
 * A customer's message on a chat: answers true when a conversation holds the chat and took it (the
 * channel then runs no turn of the plan), false when the plan has the chat.
 */
export async function routeCustomerMessage(ctx: ConversationContext, sessionId: string, message: CustomerMessage, onStored?: CustomerMessageListener): Promise<boolean> {
  const conversation = await activeConversationOf(ctx.db, sessionId);
  if (!conversation) return false;
  const fetched = message.file && !(await hasMessage(ctx.db, conversation.id, message.external_id)) ? await message.file() : null;
  const attachment = fetched ? await storeAttachment(ctx.db, conversation, fetched) : (message.attachment ?? null);
  const stored = await addMessage(ctx, conversation, { author: 'customer', text: message.text, attachment, external_id: message.external_id });
  if (stored && onStored) await onStored(conversation, stored);
  return true;
}

/**
 * The customer is typing (the web chat's widget tells it, throttled): the consoles show it while a
 * conversation holds the chat; with the plan, nobody is told.
 */
export async function routeCustomerTyping(ctx: ConversationContext, sessionId: string): Promise<void> {
  const conversation = await activeConversationOf(ctx.db, sessionId);
  if (conversation) publish(ctx, conversation, { type: 'conversation.customer_typing', conversation_id: conversation.id });
}

/** A message as a channel without attachments shows it: its text, then the attachment's link on a line of its own. */
export const withAttachmentLink = (text: string, url: string | undefined): string => [text, url].filter((part) => part).join('\n');

/**
 * A person's message to the customer, on the chat's channel. A channel whose customer's side reads
 * the conversation itself (the web chat's widget, in its poll woken by the message's live event on
 * any instance) has nothing to push; the others send it (WhatsApp through the Graph API, within the
 * customer service window), an attachment as its link where the channel carries no files. Answers
 * why it was not sent, or null.
 */
export async function deliverToCustomer(ctx: ConversationContext, conversation: Pick<Selectable<ConversationTable>, 'tenant_id' | 'session_id' | 'provider' | 'caller'>, message: ConversationMessage): Promise<string | null> {
  const channel = ctx.channels.get(conversation.provider);
  const send = channel?.chat?.message;
  if (!send) return null;
  const session = await ctx.db.selectFrom('sessions').select(['called']).where('id', '=', conversation.session_id).executeTakeFirst();
  if (!session) return 'not_configured';
  // An uploaded file goes as a file where the channel carries files (its own sender picks the kind); a link someone gave, as text.
  const asFile = message.attachment?.size != null && channel.limits.attachments.length > 0;
  const sent = await send(ctx, { tenant_id: conversation.tenant_id, session_id: conversation.session_id, caller: conversation.caller, called: session.called }, asFile ? message : { text: withAttachmentLink(message.text, message.attachment?.url), attachment: null });
  return sent.ok ? null : sent.reason;
}
