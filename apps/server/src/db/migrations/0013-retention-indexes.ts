import type { Kysely } from 'kysely';

/**
 * What the retention job and the dashboard's live view look up across tenants (docs/sessions.md,
 * "Retention"): sessions and reports by when they started, columns written once with the row, so a
 * turn of a call pays nothing for them; and the reports screen's lists and counts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Sessions started before the retention cut, and those of the last seconds (new per second).
  await db.schema.createIndex('ix_sessions__created_time').on('sessions').column('created_time').execute();
  // Reports before the retention cut; the administrator's export over every tenant, newest first.
  await db.schema.createIndex('ix_call_reports__start_time').on('call_reports').column('start_time').execute();
  // The reports screen's lists and counts leave test sessions out (is_test = 0): with it in the
  // key, a tenant's count over a period is read from the index alone (bench/README.md, "Reports:
  // list, count and export": a month's count of 1,000,000 reports on PostgreSQL, 87 ms to 19 ms).
  await db.schema.createIndex('ix_call_reports__tenant_id__is_test__start_time').on('call_reports').columns(['tenant_id', 'is_test', 'start_time']).execute();
}
