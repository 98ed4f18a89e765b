import { type Kysely, sql } from 'kysely';

/**
 * Issue 38, "No double calls": one call of a tenant to a number at a time, whoever places it (a
 * campaign, another campaign, the one-call API), on every instance. A unique index over the calls
 * not ended, which the core's insert names (`ON CONFLICT … DO NOTHING`): the check and the insert
 * are one statement, on PostgreSQL and SQLite alike (docs/outbound.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Calls to one number left not ended side by side before this (an instance that died, an end
  // never told): the newest stays, the others are ended as failed, as the stale sweep would end them.
  const now = new Date().toISOString();
  await sql`
    update outbound_calls set state = 'ended', dial_status = coalesce(dial_status, 'failed'), ended_time = ${now}, updated_time = ${now}
    where state <> 'ended' and exists (
      select 1 from outbound_calls newer
      where newer.tenant_id = outbound_calls.tenant_id and newer.called = outbound_calls.called and newer.state <> 'ended'
        and (newer.created_time > outbound_calls.created_time or (newer.created_time = outbound_calls.created_time and newer.session_id > outbound_calls.session_id))
    )`.execute(db);
  await db.schema
    .createIndex('ux_outbound_calls__tenant_id__called__live')
    .unique()
    .on('outbound_calls')
    .columns(['tenant_id', 'called'])
    .where(sql<boolean>`state <> 'ended'`)
    .execute();
}
