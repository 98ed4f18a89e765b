import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

/**
 * A tenant's saved reply (issue 36, docs/conversations.md): an agent types `/` in the message box
 * and picks one by its name; `{{name}}` in its text becomes the customer's name, or is left out
 * gracefully when the name is not known.
 */
export const savedReplyLimits = { name: 60, text: 2000 } as const;

export const savedReplySchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  text: z.string(),
});
export type SavedReply = z.infer<typeof savedReplySchema>;

const savedReplyFields = {
  name: z.string().trim().min(1).max(savedReplyLimits.name),
  text: z.string().trim().min(1).max(savedReplyLimits.text),
};
export const savedReplyCreateSchema = z.object(savedReplyFields).strict();
export const savedReplyUpdateSchema = z.object(savedReplyFields).partial().strict();
export type SavedReplyInput = z.input<typeof savedReplyCreateSchema>;

/** The variable a saved reply's text may name: the customer's name. */
export const SAVED_REPLY_NAME_VARIABLE = /\{\{\s*name\s*\}\}/g;

/**
 * The reply's text for a customer: `{{name}}` becomes their name; unknown, it is dropped with the
 * space or comma that led to it ("Hello {{name}}, welcome" -> "Hello, welcome"; "{{name}}, hi" -> "Hi").
 */
export function fillSavedReply(text: string, customerName: string | null | undefined): string {
  const name = customerName?.trim();
  if (name) return text.replace(SAVED_REPLY_NAME_VARIABLE, name);
  const filled = text
    .replace(/[ \t]*\{\{\s*name\s*\}\}/g, '')
    .replace(/^[\s,;:.!]+/, '')
    .replace(/ +([,.!?;:])/g, '$1');
  return filled.charAt(0).toUpperCase() + filled.slice(1);
}
