import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

export const auditActions = ['create', 'update', 'delete'] as const;

export const auditEntrySchema = z.object({
  id: idSchema,
  created_time: timestampSchema,
  user_id: idSchema.nullable(),
  username: z.string().nullable(),
  tenant_id: idSchema.nullable(),
  action: z.enum(auditActions),
  entity: z.string(),
  entity_id: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  source_ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
