import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * The drafts a plan was saved as, not only the one it is now: the versions drawer lists them and
 * restores any. One row per save (or restore) that changed the draft, the newest few per plan
 * (the service prunes older ones in the save's own transaction).
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('visual_plan_drafts'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('plan_id', 'integer', (c) => c.notNull().references('visual_plans.id').onDelete('cascade'))
      // The draft's version as that save made it: the numbers published versions take too.
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('saved_time', 'text', (c) => c.notNull())
      .addColumn('saved_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    await db.schema.createIndex('ux_visual_plan_drafts__plan_id__version').unique().on('visual_plan_drafts').columns(['plan_id', 'version']).execute();
  };
}
