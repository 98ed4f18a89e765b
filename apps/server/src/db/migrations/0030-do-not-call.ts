import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Issue 38: a tenant's do-not-call list (docs/do-not-call.md). A number is stored in E.164 once per
 * tenant; `added_by` keeps the name of who added it, so the list still reads when that user is gone.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('do_not_call'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('number', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('added_by', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .execute();
    // Also the index of every look-up a dial makes (isOnDoNotCall, doNotCallAmong).
    await db.schema.createIndex('ux_do_not_call__tenant_id__number').unique().on('do_not_call').columns(['tenant_id', 'number']).execute();
  };
}
