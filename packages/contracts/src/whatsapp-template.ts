import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { templateCategories } from './whatsapp-templates.ts';

/**
 * The API's shapes of WhatsApp templates (issue 39, docs/channels-whatsapp.md): the read-only
 * resource `GET /whatsapp-templates`, and the template message a composer, a plan or a campaign asks
 * to send. The types themselves live in whatsapp-templates.ts, without zod.
 */

export const templateParameterSchema = z.object({
  key: z.string(),
  component: z.enum(['header', 'body', 'button']),
  type: z.enum(['text', 'currency', 'date_time', 'image', 'video', 'document']),
  example: z.string().optional(),
});

export const templateButtonSchema = z.object({
  index: z.number().int(),
  type: z.enum(['quick_reply', 'url', 'phone_number', 'copy_code', 'other']),
  text: z.string(),
});

export const whatsappTemplateSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  number_id: idSchema,
  name: z.string(),
  language: z.string().describe('Meta’s language code: pt_BR, en_US'),
  category: z.enum(templateCategories),
  status: z.string().describe('Meta’s status, lower-case: approved, pending, rejected, paused, disabled, in_appeal…; only approved templates can be sent'),
  rejected_reason: z.string(),
  body_text: z.string().describe('the body with its placeholders ({{1}}, {{name}})'),
  header: z.object({ format: z.enum(['text', 'image', 'video', 'document', 'location']), text: z.string().optional() }).nullable(),
  footer: z.string().nullable(),
  parameters: z.array(templateParameterSchema).describe('the values the template needs, by key: header.1, body.1…, body.<name>, button.<index>'),
  buttons: z.array(templateButtonSchema),
  synced_at: timestampSchema,
});

export const templateLimits = { name: 512, language: 15, value: 1024, values: 100 } as const;

/** A template to send: its name and language on the sending number, and a value per parameter key. */
export const templateMessageSchema = z
  .object({
    name: z.string().trim().min(1).max(templateLimits.name),
    language: z.string().trim().min(1).max(templateLimits.language),
    values: z
      .record(z.string().max(100), z.string().max(templateLimits.value))
      .refine((values) => Object.keys(values).length <= templateLimits.values)
      .default({}),
  })
  .strict();
export type TemplateMessageInput = z.input<typeof templateMessageSchema>;
export type TemplateMessage = z.output<typeof templateMessageSchema>;

export * from './whatsapp-templates.ts';
