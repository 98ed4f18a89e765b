import type { Kysely } from 'kysely';

/**
 * Issue 39: when a number's templates are next synced (docs/channels-whatsapp.md, "Templates"):
 * the instance that moves it forward, only if it still holds what it read, syncs that number, so
 * two instances never both sync it. Null: never synced, due now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('numbers').addColumn('whatsapp_templates_due_at', 'text').execute();
}
