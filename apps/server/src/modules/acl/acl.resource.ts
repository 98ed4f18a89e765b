import { aclCreateSchema, aclEntrySchema, aclUpdateSchema } from '@voxplan/contracts';
import { defineResource, memberKeptTenantRecords, tenantRecordFields } from '../../resources/definition.ts';

/** The networks a tenant's voice channels accept calls from (see acl.service.ts). */
export const aclResource = defineResource({
  entity: 'acl',
  path: '/acl',
  table: 'acl',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    address: 'string',
    description: 'string',
  },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: aclEntrySchema,
  // The schemas store the address in its canonical text, so that one network is one row.
  createInput: aclCreateSchema,
  updateInput: aclUpdateSchema,
  unique: [{ columns: ['tenant_id', 'address'], code: 'address_already_exists' }],
});
