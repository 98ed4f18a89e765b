import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

/** `refuse`: something the server turned away, such as an AGI call from an address outside the tenant's ACL. */
export const auditActions = ['create', 'update', 'delete', 'refuse'] as const;
export type AuditAction = (typeof auditActions)[number];

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
