import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * The agent's work (issue 36, docs/conversations.md): a queue's closing message to the customer on
 * resolve, in English and Portuguese (empty: the server's default text); the tenant's saved
 * replies; when the web chat's widget last asked for a conversation a person holds (the customer
 * closed it when it stops asking). Private notes are messages of author `note`: no column needed.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('destinations').addColumn('closing_message_en', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('destinations').addColumn('closing_message_pt', 'text', (c) => c.notNull().defaultTo('')).execute();

    await db.schema.alterTable('conversations').addColumn('customer_seen_at', 'text').execute();

    await withId(db.schema.createTable('saved_replies'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_saved_replies__tenant_id__name').unique().on('saved_replies').columns(['tenant_id', 'name']).execute();
  };
}
