import type { Kysely } from 'kysely';

/**
 * Issue 39: conversations the business starts on WhatsApp (docs/outbound.md, "WhatsApp"). A
 * number's daily reach counts the customers its outbound chats reached in the last 24 hours: the
 * index that count reads, before each WhatsApp call a campaign places.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ix_outbound_calls__number_id__created_time').on('outbound_calls').columns(['number_id', 'created_time']).execute();
}
