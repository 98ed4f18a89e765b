import { z } from 'zod';
import { idSchema, storableText, timestampSchema } from './common.ts';

export const loginSchema = z
  .object({ username: storableText().trim().min(1).max(254), password: storableText().min(1).max(200) })
  .strict();
export const tokenSchema = z.object({ token: z.string() });

export const apiKeySchema = z.object({
  id: idSchema,
  name: z.string(),
  prefix: z.string().describe('the first characters of the key, to recognise it'),
  created_time: timestampSchema,
  last_used_time: timestampSchema.nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;
export const apiKeyCreateSchema = z.object({ name: storableText().trim().min(1).max(100) }).strict();
export const apiKeyCreatedSchema = apiKeySchema.extend({
  key: z.string().describe('shown once; only a hash is stored'),
});
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
