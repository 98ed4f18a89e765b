import { configurationCreateSchema, configurationSchema, configurationUpdateSchema, systemSettingType } from '@voxplan/contracts';
import { badRequest, conflict } from '../../errors.ts';
import { defineResource } from '../../resources/definition.ts';

export const configurationsResource = defineResource({
  entity: 'configuration',
  path: '/configurations',
  table: 'configurations',
  tenantOwned: false,
  read: 'admin',
  write: 'admin',
  fields: {
    id: 'integer',
    name: 'string',
    value: 'string',
    category: 'string',
    description: 'string',
    type: 'string',
    created_time: 'date',
    updated_time: 'date',
  },
  defaultOrder: [
    { field: 'category', direction: 'asc' },
    { field: 'name', direction: 'asc' },
  ],
  output: configurationSchema,
  createInput: configurationCreateSchema,
  updateInput: configurationUpdateSchema,
  unique: [{ columns: ['name'], code: 'name_already_exists' }],
  auditTenant: () => null,
  toValues(input, _write, before) {
    // System settings come with the installation; one created through the API could never be removed.
    if (!before && input.type === systemSettingType) {
      throw badRequest('invalid_input', [{ path: 'type', message: `'${systemSettingType}' is reserved for system settings` }]);
    }
    return input;
  },
  async beforeDelete(rows) {
    if (rows.some((row) => row.type === systemSettingType)) throw conflict('system_setting_not_removable');
  },
});
