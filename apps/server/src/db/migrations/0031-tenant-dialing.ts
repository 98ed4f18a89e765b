import type { Kysely } from 'kysely';

/**
 * Issue 38: where a tenant dials from. `country` (ISO 3166-1 alpha-2) reads national numbers;
 * `time_zone` (IANA) places a campaign's schedule. Empty: the server's (tenantDialingDefaults).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tenants').addColumn('country', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('tenants').addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('')).execute();
}
