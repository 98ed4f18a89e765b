import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

export const systemSettingType = 'sistema';

export const configurationSchema = z.object({
  id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  value: z.string(),
  category: z.string(),
  description: z.string(),
  type: z.string(),
});
export type Configuration = z.infer<typeof configurationSchema>;

export const configurationCreateSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9_.-]+$/),
    value: z.string().max(10_000).default(''),
    category: z.string().trim().max(100).default('general'),
    description: z.string().max(500).default(''),
    type: z.string().trim().min(1).max(50).default('custom'),
  })
  .strict();
export const configurationUpdateSchema = z
  .object({
    value: z.string().max(10_000),
    category: z.string().trim().max(100),
    description: z.string().max(500),
  })
  .partial()
  .strict();
export type ConfigurationCreate = z.input<typeof configurationCreateSchema>;
export type ConfigurationUpdate = z.input<typeof configurationUpdateSchema>;
