import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Plans: the draft being edited, every published version, and what each plan refers to. The
 * session runtime reads published versions (and a draft, for the simulator); removal checks of
 * destinations, audios, date ranges and plans read plan_references.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('visual_plans'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      // The draft: JSON text of the plan content ({format_version, settings, nodes, edges}).
      .addColumn('document', 'text', (c) => c.notNull())
      // Grows by one on every save; a save names the version it was based on (plan_out_of_sync).
      .addColumn('version', 'integer', (c) => c.notNull())
      // The draft version that was last published, or null while the plan was never published.
      .addColumn('published_version', 'integer')
      .addColumn('updated_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    await db.schema.createIndex('ux_visual_plans__tenant_id__name').unique().on('visual_plans').columns(['tenant_id', 'name']).execute();

    // Every published version, kept: calls and chats run the newest; older ones can be restored.
    await withId(db.schema.createTable('visual_plan_versions'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('plan_id', 'integer', (c) => c.notNull().references('visual_plans.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('published_time', 'text', (c) => c.notNull())
      .addColumn('published_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    await db.schema
      .createIndex('ux_visual_plan_versions__plan_id__version')
      .unique()
      .on('visual_plan_versions')
      .columns(['plan_id', 'version'])
      .execute();

    // What a plan's draft and its newest published version name, kept in step on every save and
    // publish, so "is this destination used by a plan?" is one indexed query on both databases.
    await withId(db.schema.createTable('plan_references'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('plan_id', 'integer', (c) => c.notNull().references('visual_plans.id').onDelete('cascade'))
      // destination | audio | date_range | plan
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('ref_id', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ix_plan_references__tenant_id__kind__ref_id').on('plan_references').columns(['tenant_id', 'kind', 'ref_id']).execute();
    await db.schema.createIndex('ix_plan_references__plan_id').on('plan_references').column('plan_id').execute();
  };
}
