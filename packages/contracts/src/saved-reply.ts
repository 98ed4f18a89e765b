import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { savedReplyLimits } from './saved-reply-text.ts';

/**
 * A tenant's saved reply (issue 36, docs/conversations.md): an agent types `/` in the message box
 * and picks one by its name; `{{name}}` in its text becomes the customer's name, or is left out
 * gracefully when the name is not known.
 */

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

export { fillSavedReply, savedReplyLimits } from './saved-reply-text.ts';
