import { savedReplyCreateSchema, savedReplySchema, savedReplyUpdateSchema } from '@voxplan/contracts';
import { defineResource, memberKeptTenantRecords, tenantRecordFields } from '../../resources/definition.ts';

/**
 * A tenant's saved replies (issue 36, docs/conversations.md, "Saved replies"): its users and the
 * administrators keep them, everyone of the tenant reads them (the agents' `/` picker). The generic
 * resource gives the CRUD, the role check before the body's, the audit and the tenant scope.
 */
export const savedRepliesResource = defineResource({
  entity: 'saved_reply',
  path: '/saved-replies',
  table: 'saved_replies',
  ...memberKeptTenantRecords,
  fields: { ...tenantRecordFields, name: 'string', text: 'string' },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: savedReplySchema,
  createInput: savedReplyCreateSchema,
  updateInput: savedReplyUpdateSchema,
  unique: [{ columns: ['tenant_id', 'name'], code: 'name_already_exists' }],
});
