import type { Kysely } from 'kysely';

/**
 * What the retention job and the dashboard's live view look up across tenants (docs/sessions.md,
 * "Retention"): sessions and reports by when they started. Both columns are written once, with the
 * row, so a turn of a call pays nothing for them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Sessions started before the retention cut, and those of the last seconds (new per second).
  await db.schema.createIndex('ix_sessions__created_time').on('sessions').column('created_time').execute();
  // Reports before the retention cut; the administrator's export over every tenant, newest first.
  await db.schema.createIndex('ix_call_reports__start_time').on('call_reports').column('start_time').execute();
}
