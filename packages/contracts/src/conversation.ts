import { z } from 'zod';
import { chatCustomerSchema } from './customer.ts';
import { idSchema, timestampSchema } from './common.ts';
import { templateMessageSchema } from './whatsapp-template.ts';

/**
 * Conversations (issue 30, docs/conversations.md): chats a person holds, taken from a queue
 * destination in the console, or kept by an outside desk through its reply URL.
 */

export const conversationStatuses = ['waiting', 'open', 'closed'] as const;
export type ConversationStatus = (typeof conversationStatuses)[number];
/** `abandoned`: the customer left while it waited (docs/handoff.md, "Outcomes"). */
export const conversationOutcomes = ['resolved', 'back_to_plan', 'no_answer', 'busy', 'transferred', 'abandoned'] as const;
export type ConversationOutcome = (typeof conversationOutcomes)[number];
/** `note`: an agent's private note, seen by the tenant's agents only, never sent to the customer. */
export const conversationAuthors = ['customer', 'agent', 'bot', 'system', 'note'] as const;
export const agentStatuses = ['online', 'away', 'offline'] as const;
export type AgentStatus = (typeof agentStatuses)[number];

export const conversationLimits = { text: 2000, pageSize: 50, q: 100 } as const;

const named = z.object({ id: idSchema, name: z.string() });

export const conversationAttachmentSchema = z
  .object({
    url: z.string().url().max(2000).refine((url) => /^https:\/\//i.test(url), 'must be an https URL'),
    content_type: z.string().min(1).max(100),
    name: z.string().max(200).default(''),
  })
  .strict();
export type ConversationAttachment = z.infer<typeof conversationAttachmentSchema>;

/**
 * An attachment as a message carries it: a link someone gave, or a file the agent uploaded
 * (`size` set; `url` is then the file's signed public URL, fresh at each read, which the channels
 * and the console fetch without a token).
 */
export const conversationMessageAttachmentSchema = z.object({
  url: z.string(),
  content_type: z.string(),
  name: z.string(),
  /** Bytes of an uploaded file; null for a link. */
  size: z.number().int().nonnegative().nullable(),
});
export type ConversationMessageAttachment = z.infer<typeof conversationMessageAttachmentSchema>;

export const conversationMessageSchema = z.object({
  id: idSchema,
  conversation_id: idSchema,
  author: z.enum(conversationAuthors),
  /** The agent who wrote it (author `agent`), by name as the customer sees it. */
  agent: named.nullable(),
  text: z.string(),
  attachment: conversationMessageAttachmentSchema.nullable(),
  /**
   * A WhatsApp template the agent sent (outside the customer service window): its name and
   * language; `text` is then the template's text with its values. Null for any other message.
   */
  template: z.object({ name: z.string(), language: z.string() }).nullable(),
  created_at: timestampSchema,
});
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;

export const conversationRowSchema = z.object({
  id: idSchema,
  session_id: z.string(),
  status: z.enum(conversationStatuses),
  /** The queue destination; for an outside desk, its URL destination. Null once that destination is removed. */
  queue: named.nullable(),
  agent: named.nullable(),
  channel: z.string(),
  provider: z.string(),
  caller: z.string(),
  /** Who the customer is, as the channel told it (WhatsApp's profile name, the web chat's form or the site's signed user); null: unknown. */
  customer: chatCustomerSchema.nullable(),
  protocol: z.string(),
  waiting_since: timestampSchema,
  taken_at: timestampSchema.nullable(),
  closed_at: timestampSchema.nullable(),
  outcome: z.enum(conversationOutcomes).nullable(),
  last_message: z.object({ author: z.enum(conversationAuthors), text: z.string(), created_at: timestampSchema }).nullable(),
  unread: z.number().int().nonnegative(),
});
export type ConversationRow = z.infer<typeof conversationRowSchema>;

export const conversationDetailSchema = conversationRowSchema.extend({
  messages: z.array(conversationMessageSchema),
  /** The plan's part of the chat, before the hand-off: the session's transcript. */
  bot_transcript: z.array(z.object({ from: z.enum(['caller', 'plan']), text: z.string(), at: timestampSchema })),
  variables: z.record(z.string(), z.unknown()),
  plan: named,
  /**
   * Where the channel lets a business write freely only for a while after the customer's last
   * message (WhatsApp: 24 hours, docs/conversations.md "The customer service window"): when that
   * window closes (in the past once it has); null on channels without one, or when the customer
   * never wrote.
   */
  window_closes_at: timestampSchema.nullable(),
});
export type ConversationDetail = z.infer<typeof conversationDetailSchema>;

export const conversationListQuerySchema = z.object({
  status: z.enum(conversationStatuses).default('waiting'),
  q: z.string().trim().max(conversationLimits.q).optional(),
  queue_id: z.coerce.number().int().positive().max(2 ** 31 - 1).optional(),
  page: z.coerce.number().int().positive().max(10_000).default(1),
});

export const conversationMessageInputSchema = z
  .object({
    text: z.string().trim().max(conversationLimits.text).default(''),
    attachment: conversationAttachmentSchema.optional(),
  })
  .strict()
  .refine((body) => body.text !== '' || body.attachment !== undefined, { path: ['text'], message: 'a message needs text or an attachment' });

/**
 * A template an agent sends: the template message, and which of its text parameters go as a
 * currency or a date (Meta's template does not type them; the agent's form does).
 */
export const agentTemplateSchema = templateMessageSchema.extend({
  types: z.record(z.string().max(100), z.enum(['currency', 'date_time'])).default({}),
});
export type AgentTemplateMessage = z.output<typeof agentTemplateSchema>;

/**
 * What POST /conversations/{id}/messages takes: a text (and a link), or a WhatsApp template with
 * its values (docs/conversations.md, "The customer service window").
 */
export const conversationMessageBodySchema = z.union([conversationMessageInputSchema, z.object({ template: agentTemplateSchema }).strict()]);

export const conversationNoteInputSchema = z.object({ text: z.string().trim().min(1).max(conversationLimits.text) }).strict();

export const conversationTransferSchema = z.union([
  z.object({ queue_id: idSchema }).strict(),
  z.object({ agent_id: idSchema }).strict(),
]);

export const conversationCloseSchema = z.object({ outcome: z.enum(['resolved', 'back_to_plan']) }).strict();

export const agentPresenceSchema = z.object({ status: z.enum(agentStatuses) });
export type AgentPresence = z.infer<typeof agentPresenceSchema>;

/** One who may answer the tenant's chats (GET /agents): a user of the tenant or an administrator, with their presence there. */
export const agentSchema = z.object({ id: idSchema, name: z.string(), status: z.enum(agentStatuses) });
export type Agent = z.infer<typeof agentSchema>;

export const conversationSummarySchema = z.object({
  /** Chats waiting in the caller's queues (every queue for administrators and guests). */
  waiting: z.number().int().nonnegative(),
  /** Messages the caller has not read in their open chats. */
  unread: z.number().int().nonnegative(),
  queues: z.array(
    z.object({ id: idSchema, name: z.string(), waiting: z.number().int().nonnegative(), longest_wait_s: z.number().int().nonnegative(), agents_online: z.number().int().nonnegative() }),
  ),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

/** What GET /conversations/events sends, one per `event:`; `conversation` is the row as the list shows it. */
export type ConversationEvent =
  | { type: 'conversation.waiting' | 'conversation.taken' | 'conversation.closed' | 'conversation.transferred'; conversation_id: number; conversation: ConversationRow }
  /** `window_closes_at`: with a customer's message on a channel with a customer service window, when the window it opened closes. */
  | { type: 'conversation.message'; conversation_id: number; message: ConversationMessage; window_closes_at?: string }
  | { type: 'conversation.typing'; conversation_id: number; agent: { id: number; name: string } }
  /** The customer is typing (the web chat's widget tells it; WhatsApp has no such event). */
  | { type: 'conversation.customer_typing'; conversation_id: number };
