import { z } from 'zod';
import { conversationMessageAttachmentSchema } from './conversation.ts';
import { customerLimits, webchatPrechatFields } from './customer.ts';

/**
 * The web chat widget's public API (docs/channels-webchat.md): no token, the number's public key in
 * the path, answered only to the pages of the number's allowed origins.
 */

export const webchatLimits = { text: 2000, messageId: 100, waitSeconds: 25 } as const;

export const webchatOptionSchema = z.object({
  /** What the menu takes back (the option's digits). */
  id: z.string(),
  label: z.string(),
});
export type WebchatOption = z.infer<typeof webchatOptionSchema>;

export const webchatConversationSchema = z.object({
  conversation_id: z.string().describe('kept by the widget (localStorage) to resume the conversation after a reload'),
  status: z.enum(['waiting', 'ended']),
  revision: z.number().int().describe('grows with every turn: the next poll sends it as `after`'),
  messages: z
    .array(
      z.object({
        from: z.enum(['user', 'plan', 'agent']),
        text: z.string(),
        at: z.string(),
        /** The person who wrote it, for `from: 'agent'` (docs/conversations.md). */
        agent_name: z.string().optional(),
        /** A file or link sent with it: the widget shows an image inline, any other file as a download link. */
        attachment: conversationMessageAttachmentSchema.optional(),
      }),
    )
    .describe('the whole transcript, oldest first (the engine keeps the last 200); then what was said with a person, when one took the chat'),
  options: z.array(webchatOptionSchema).describe('the buttons of the menu the plan waits on; empty when none'),
  files: z
    .boolean()
    .describe('whether the visitor may send a file now: while the chat waits for a person or one attends it (plans do not read files)'),
  typing: z
    .object({ type: z.literal('typing'), agent_name: z.string() })
    .nullable()
    .describe('the person holding the chat is typing (told for a few seconds after they type)'),
});
export type WebchatConversation = z.infer<typeof webchatConversationSchema>;

/**
 * Control characters no one types: C0 but tab and line breaks, DEL and C1. A message holding one
 * (a NUL) is refused rather than cleaned, so that what the plan reads is what was sent; PostgreSQL
 * could not store a NUL in the transcript anyway.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const withoutControls = (text: string) => !controlCharacters.test(text);
const controlsMessage = 'holds a control character (such as NUL), which a message may not';

export const webchatMessageSchema = z
  .object({
    /** The widget's id for this message: sent again (a retry), it runs nothing twice. */
    id: z.string().min(1).max(webchatLimits.messageId).refine(withoutControls, controlsMessage),
    text: z.string().trim().min(1).max(webchatLimits.text).refine(withoutControls, controlsMessage),
  })
  .strict();
export type WebchatMessage = z.infer<typeof webchatMessageSchema>;

/**
 * The fields of a visitor's file (multipart, beside `file`): the widget's id for it, so that a retry
 * stores it once, and an optional caption.
 */
export const webchatFileFieldsSchema = z
  .object({
    id: webchatMessageSchema.shape.id,
    text: z.string().trim().max(webchatLimits.text).refine(withoutControls, controlsMessage).optional(),
  })
  .strict();

export const webchatPollSchema = z.object({
  /** Answer at once when the conversation's revision is past this; else wait for a turn. */
  after: z.coerce.number().int().nonnegative().optional(),
  /** Seconds to wait for a turn (long poll); 0 or absent: answer at once. */
  wait: z.coerce.number().int().min(0).max(webchatLimits.waitSeconds).optional(),
});

const customerName = z.string().trim().min(1).max(customerLimits.name).refine(withoutControls, controlsMessage);
const customerEmail = z.email().max(customerLimits.email);

/**
 * What the widget says of its visitor when it starts a conversation (docs/channels-webchat.md, "Who
 * the visitor is"): the pre-chat form's answers, the page's address, and the site's signed-in user
 * with the site's signature of their id (HMAC-SHA256 with the number's identity key, hex).
 */
export const webchatStartSchema = z
  .object({
    customer: z.object({ name: customerName.optional(), email: customerEmail.optional() }).strict().optional(),
    page_url: z.url({ protocol: /^https?$/ }).max(customerLimits.pageUrl).optional(),
    identity: z
      .object({
        id: z.string().min(1).max(customerLimits.externalId).refine(withoutControls, controlsMessage),
        name: customerName.optional(),
        email: customerEmail.optional(),
        hash: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected the HMAC-SHA256 of the id, in hex'),
      })
      .strict()
      .optional(),
    visitor_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'expected 8 to 64 letters, digits, "-" or "_"')
      .optional()
      .describe('a random id the widget keeps in the browser: a staged rollout keeps this visitor on one version (docs/rollouts.md); the signed identity wins when both are sent'),
  })
  .strict();
export type WebchatStart = z.infer<typeof webchatStartSchema>;

/** What the widget needs before it starts: the fields the number asks first. */
export const webchatSettingsSchema = z.object({
  prechat: z.array(z.enum(webchatPrechatFields)).describe('asked, each required, before the first message; empty: none'),
});
export type WebchatSettings = z.infer<typeof webchatSettingsSchema>;
