import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('acl'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // An address or a network in CIDR notation, stored in canonical form.
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_acl__tenant_id__address').unique().on('acl').columns(['tenant_id', 'address']).execute();

    // Holidays are shared by every tenant and kept by administrators.
    await withId(db.schema.createTable('holidays'), dialect)
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // YYYY-MM-DD; with recurring = 1 only the month and day count.
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('recurring', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('country', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex('ux_holidays__date__level__country__state__city__name')
      .unique()
      .on('holidays')
      .columns(['date', 'level', 'country', 'state', 'city', 'name'])
      .execute();
  };
}
