import { auditEntrySchema, type AuditEntry } from '@voxplan/contracts';
import { z } from 'zod';
import { defineResource, type Row } from '../../resources/definition.ts';

const parseSnapshot = (text: unknown): unknown => (typeof text === 'string' ? (JSON.parse(text) as unknown) : null);

/** Read-only: the audit log is written by the write paths themselves (resources/audit.recorder.ts). */
export const auditResource = defineResource({
  entity: 'audit',
  path: '/audit',
  table: 'audit_log',
  tenantOwned: true,
  readOnly: true,
  read: 'admin',
  write: 'admin',
  fields: {
    id: 'integer',
    created_time: 'date',
    user_id: 'integer',
    username: 'string',
    tenant_id: 'integer',
    action: 'string',
    entity: 'string',
    entity_id: 'string',
    source_ip: 'string',
  },
  defaultOrder: [{ field: 'id', direction: 'desc' }],
  output: auditEntrySchema,
  createInput: z.never(),
  updateInput: z.never(),
  present: (rows: Row[]) =>
    rows.map((row) => ({ ...row, before: parseSnapshot(row.before), after: parseSnapshot(row.after) }) as AuditEntry),
});
