import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

export const destinationKinds = ['voice', 'chat'] as const;

const SIP_URI = /^sips?:[^\s@]+@[^\s@]+$|^sips?:[^\s@:]+(:\d{1,5})?(;[^\s]*)?$/i;
const TEL_URI = /^tel:\+?[0-9*#().-]{1,32}(;[^\s]*)?$/i;

/** A voice destination is a SIP or tel URI; a chat destination is an https URL. */
export function isValidDestinationUri(kind: (typeof destinationKinds)[number], uri: string): boolean {
  if (kind === 'voice') return SIP_URI.test(uri) || TEL_URI.test(uri);
  try {
    return new URL(uri).protocol === 'https:';
  } catch {
    return false;
  }
}

export const destinationSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  kind: z.enum(destinationKinds),
  uri: z.string(),
  description: z.string(),
});
export type Destination = z.infer<typeof destinationSchema>;

const destinationFields = {
  name: z.string().trim().min(1).max(100),
  kind: z.enum(destinationKinds),
  uri: z.string().trim().min(1).max(500),
  description: z.string().max(500),
};

export const destinationCreateSchema = z
  .object({ ...destinationFields, description: destinationFields.description.default('') })
  .strict()
  .superRefine((value, ctx) => {
    if (!isValidDestinationUri(value.kind, value.uri)) {
      ctx.addIssue({ code: 'custom', path: ['uri'], message: `invalid ${value.kind} URI` });
    }
  });
export const destinationUpdateSchema = z.object(destinationFields).partial().strict();
