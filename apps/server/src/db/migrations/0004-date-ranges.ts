import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('date_ranges'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // An IANA zone name; the intervals and exceptions are wall-clock times and dates in it.
      .addColumn('time_zone', 'text', (c) => c.notNull())
      // JSON text on both dialects: read whole with the range, never filtered on.
      .addColumn('intervals', 'text', (c) => c.notNull())
      .addColumn('exceptions', 'text', (c) => c.notNull())
      // The place whose holidays apply; an empty country means none do.
      .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('state', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    // Also the index a tenant's list, ordered by name, reads.
    await db.schema.createIndex('ux_date_ranges__tenant_id__name').unique().on('date_ranges').columns(['tenant_id', 'name']).execute();
  };
}
