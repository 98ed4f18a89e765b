import {
  allowedSettingValues,
  configurationCreateSchema,
  configurationSchema,
  configurationUpdateSchema,
  parseSettingValue,
  systemSettingNamed,
  systemSettingType,
} from '@voxplan/contracts';
import { AppError, badRequest, conflict } from '../../errors.ts';
import { defineResource, type Values } from '../../resources/definition.ts';

/**
 * Refuses a value a system setting cannot hold (400 invalid_setting_value, naming what it takes),
 * and keeps its text trimmed. Thrown inside the write's transaction, so a bulk PATCH refused on
 * one row changes none.
 */
function checkedValue(name: string, input: Values): Values {
  const definition = systemSettingNamed(name);
  if (!definition || typeof input.value !== 'string') return input;
  if (parseSettingValue(definition, input.value) === undefined) {
    const allowed = allowedSettingValues(definition) ?? '';
    throw new AppError(400, 'invalid_setting_value', [{ path: 'value', message: `${name} takes ${allowed}` }], undefined, { name, allowed });
  }
  return definition.kind === 'text' ? input : { ...input, value: input.value.trim() };
}

/**
 * A system setting's category and description come from the registry (the console shows the
 * registry's translated description), so only its value may change: anything else sent that
 * differs from what is stored is refused (400 system_setting_value_only), inside the write's
 * transaction so that a bulk PATCH changes no row. Name and type are outside the update schema.
 */
function refuseMetadataChange(before: Values, input: Values): void {
  const changed = Object.keys(input).filter((field) => field !== 'value' && input[field] !== undefined && input[field] !== before[field]);
  if (changed.length > 0) {
    throw badRequest(
      'system_setting_value_only',
      changed.map((path) => ({ path, message: `${String(before.name)} is a system setting: only its value can change` })),
    );
  }
}

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
    if (before?.type === systemSettingType) refuseMetadataChange(before, input);
    return checkedValue(String(before?.name ?? input.name), input);
  },
  async beforeDelete(rows) {
    if (rows.some((row) => row.type === systemSettingType)) throw conflict('system_setting_not_removable');
  },
});
