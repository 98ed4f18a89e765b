import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Phone numbers (DIDs, spec sections 2 and 3) and their ordered routing rules. A call or chat to a
 * number runs the plan of the first rule that matches, else the number's own plan for the channel
 * (modules/numbers/number-lookup.ts).
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('numbers'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      // E.164 (+ and up to 15 digits): what a provider's webhook names as the called number.
      .addColumn('number', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      // twilio | asterisk | whatsapp | webchat
      .addColumn('provider', 'text', (c) => c.notNull())
      // Foreign keys: the database itself refuses to remove a plan a number still runs.
      .addColumn('voice_plan_id', 'integer', (c) => c.references('visual_plans.id'))
      .addColumn('chat_plan_id', 'integer', (c) => c.references('visual_plans.id'))
      // WhatsApp (provider whatsapp): the token Meta's webhook verification echoes, the access
      // token (encrypted with the master key, lib/keys.ts) and Meta's id of the phone number.
      .addColumn('whatsapp_verify_token', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('whatsapp_token', 'text')
      .addColumn('whatsapp_phone_number_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    // A number belongs to one tenant: unique across the system, and the index a call's lookup reads.
    await db.schema.createIndex('ux_numbers__number').unique().on('numbers').column('number').execute();
    await db.schema.createIndex('ix_numbers__tenant_id__number').on('numbers').columns(['tenant_id', 'number']).execute();
    await db.schema.createIndex('ix_numbers__voice_plan_id').on('numbers').column('voice_plan_id').execute();
    await db.schema.createIndex('ix_numbers__chat_plan_id').on('numbers').column('chat_plan_id').execute();

    // Rows rather than JSON, so that the plans and date ranges they name are foreign keys and "is
    // this plan used by a number?" is an indexed query on both databases.
    await withId(db.schema.createTable('number_rules'), dialect)
      .addColumn('number_id', 'integer', (c) => c.notNull().references('numbers.id').onDelete('cascade'))
      // 0, 1, …: the order rules are tried in.
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('date_range_id', 'integer', (c) => c.references('date_ranges.id'))
      // JSON list of caller prefixes (digits, optional leading +); empty: any caller.
      .addColumn('caller_prefixes', 'text', (c) => c.notNull())
      .addColumn('plan_id', 'integer', (c) => c.notNull().references('visual_plans.id'))
      .execute();
    await db.schema.createIndex('ux_number_rules__number_id__position').unique().on('number_rules').columns(['number_id', 'position']).execute();
    await db.schema.createIndex('ix_number_rules__plan_id').on('number_rules').column('plan_id').execute();
    await db.schema.createIndex('ix_number_rules__date_range_id').on('number_rules').column('date_range_id').execute();
  };
}
