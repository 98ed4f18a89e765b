import { tenantInputSchema, tenantSchema } from '@voxplan/contracts';
import { conflict } from '../../errors.ts';
import { defineResource, type Row, type TableWithTenant } from '../../resources/definition.ts';

/**
 * The tenants' resource. `tenantOwnedTables`: the tables whose rows are a tenant's data
 * (modules/resource-registry.ts knows them), read when a removal is asked.
 */
export const defineTenantsResource = (tenantOwnedTables: () => readonly TableWithTenant[]) => defineResource({
  entity: 'tenant',
  path: '/tenants',
  table: 'tenants',
  tenantOwned: false,
  read: 'admin',
  write: 'admin',
  fields: { id: 'integer', name: 'string', created_time: 'date', language: 'string', country: 'string', time_zone: 'string' },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: tenantSchema,
  createInput: tenantInputSchema,
  updateInput: tenantInputSchema,
  unique: [{ columns: ['name'], code: 'tenant_already_exists' }],
  timestamps: { created: true, updated: false },
  auditTenant: (row) => row.id,
  beforeCreate: ({ app, trx }) => app.license.assertRoom('tenants', trx),
  present: (rows: Row[]) =>
    rows.map(({ id, created_time, name, language, country, time_zone }) => ({
      id,
      created_time: created_time as string,
      name: name as string,
      language: language as string,
      country: country as string,
      time_zone: time_zone as string,
    })),
  // A row added to the tenant while it is being removed (after beforeDelete looked) stops the removal.
  inUseCode: 'tenant_in_use',
  async beforeDelete(rows, { trx, scope }) {
    const ids = rows.map((row) => row.id);
    // The console sends the selected tenant as the scope: removing it would leave the admin nowhere.
    if (scope.tenantId !== null && ids.includes(scope.tenantId)) throw conflict('tenant_in_use');
    const users = await trx.selectFrom('user_roles').select('id').where('tenant_id', 'in', ids).limit(1).executeTakeFirst();
    if (users) throw conflict('tenant_in_use');
    for (const table of tenantOwnedTables()) {
      const owned = await trx.selectFrom(table).select('id').where('tenant_id', 'in', ids).limit(1).executeTakeFirst();
      if (owned) throw conflict('tenant_in_use');
    }
  },
});
