import {
  type DestinationKind,
  destinationCreateSchema,
  destinationSchema,
  destinationUpdateSchema,
  destinationUriMessages,
  isValidDestinationUri,
} from '@voxplan/contracts';
import { badRequest } from '../../errors.ts';
import { defineResource, memberKeptTenantRecords, tenantRecordFields } from '../../resources/definition.ts';
import { assertNotReferenced } from '../visual-plans/plan-references.ts';

export const destinationsResource = defineResource({
  entity: 'destination',
  path: '/destinations',
  table: 'destinations',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    kind: 'string',
    uri: 'string',
    description: 'string',
  },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: destinationSchema,
  createInput: destinationCreateSchema,
  updateInput: destinationUpdateSchema,
  unique: [{ columns: ['tenant_id', 'uri'], code: 'uri_already_exists' }],
  toValues(input, _write, before) {
    // A patch may change the kind or the URI alone (the schema checks them when both are sent):
    // the record as it will be must still agree.
    if (before && (input.kind !== undefined || input.uri !== undefined)) {
      const kind = (input.kind ?? before.kind) as DestinationKind;
      const uri = (input.uri ?? before.uri) as string;
      if (!isValidDestinationUri(kind, uri)) throw badRequest('invalid_input', [{ path: 'uri', message: destinationUriMessages[kind] }]);
    }
    return input;
  },
  // A plan's destination block dials it: not removable while a plan's draft or published version names it.
  inUseCode: 'destination_in_use',
  beforeDelete: (rows, write) => assertNotReferenced(write, 'destination', rows, 'destination_in_use'),
});
