/**
 * Which tables announce their writes on the instance bus (PostgreSQL), and the triggers that do it:
 * a commit that wrote a table tells every instance's read cache (instance-bus.ts,
 * docs/decisions.md, "Several instances").
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';
import { BUS_CHANNEL } from './instance-bus.ts';

/**
 * Tables every turn of a call writes and no cached read names: they send no notification. NOTIFY
 * serialises the commits of the transactions that send one (PostgreSQL takes a database-wide lock
 * for it until the commit is flushed), which a call's turns should not pay for nothing. A read
 * that names one of them is never kept (`WriteTracker`).
 */
export const UNNOTIFIED_TABLES: ReadonlySet<string> = new Set([
  'sessions',
  'session_events',
  'protocol_counters',
  'whatsapp_messages',
  // Raised by every session end; the statistics read them directly, never through the cache.
  'stats_tenants',
  'stats_sessions',
  'stats_nodes',
  'stats_digits',
  'stats_nodes_days',
  'stats_digits_days',
  // Written with the report of a session that called a plan; read by a rollout's results directly, never through the cache.
  'call_report_plans',
  // Counted by the AI cost guard on every AI request; read only by the guard.
  'ai_tenant_minutes',
  'ai_session_tokens',
  // Written by every call the licence refuses (when the installation is at its busiest); read by the dashboard directly.
  'session_refusals',
]);

const NOT_NOTIFIED = new Set([...UNNOTIFIED_TABLES, 'kysely_migration', 'kysely_migration_lock']);

/**
 * Makes every table but the hot ones of a call's turns announce its writes on commit: a statement
 * trigger that sends `w:<table>` on the bus's channel (PostgreSQL folds the repeats of one
 * transaction into one). Run after every migration, so that tables added later get it too; under
 * an advisory lock, since instances may start together.
 */
export async function installWriteNotifications(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('voxplan_notify_write'))`.execute(trx);
    await sql
      .raw(
        `CREATE OR REPLACE FUNCTION voxplan_notify_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${BUS_CHANNEL}', 'w:' || TG_TABLE_NAME);
  RETURN NULL;
END $$`,
      )
      .execute(trx);
    const { rows } = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
        AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'voxplan_notify_write')`.execute(trx);
    for (const { name } of rows) {
      if (NOT_NOTIFIED.has(name)) continue;
      await sql`CREATE TRIGGER voxplan_notify_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.id(name)}
        FOR EACH STATEMENT EXECUTE FUNCTION voxplan_notify_write()`.execute(trx);
    }
  });
}
