import { z } from 'zod';
import { conversationMessageAttachmentSchema } from './conversation.ts';

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

export const webchatPollSchema = z.object({
  /** Answer at once when the conversation's revision is past this; else wait for a turn. */
  after: z.coerce.number().int().nonnegative().optional(),
  /** Seconds to wait for a turn (long poll); 0 or absent: answer at once. */
  wait: z.coerce.number().int().min(0).max(webchatLimits.waitSeconds).optional(),
});
