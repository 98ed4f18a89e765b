import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Issue 39: WhatsApp message templates (docs/channels-whatsapp.md, "Templates"). A number gains its
 * WhatsApp Business Account id (whose templates it sends) and its daily messaging limit (Meta's
 * tier: 250, 2,000, 10,000, 100,000; null: unlimited); the templates synced from Meta, one row per
 * name and language; and, per sent message, Meta's error code and the template it was.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('numbers').addColumn('whatsapp_business_account_id', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('numbers').addColumn('whatsapp_daily_limit', 'integer').execute();

    await withId(db.schema.createTable('whatsapp_templates'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('number_id', 'integer', (c) => c.notNull().references('numbers.id').onDelete('cascade'))
      .addColumn('meta_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      // Meta's `components` as it gave them (JSON): parsed again when read, so a better parser needs no new sync.
      .addColumn('components', 'text', (c) => c.notNull())
      .addColumn('rejected_reason', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('synced_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_whatsapp_templates__number_id__name__language').unique().on('whatsapp_templates').columns(['number_id', 'name', 'language']).execute();
    await db.schema.createIndex('ix_whatsapp_templates__tenant_id__name').on('whatsapp_templates').columns(['tenant_id', 'name']).execute();

    await db.schema.alterTable('whatsapp_messages').addColumn('error_code', 'integer').execute();
    await db.schema.alterTable('whatsapp_messages').addColumn('template_name', 'text').execute();
  };
}
