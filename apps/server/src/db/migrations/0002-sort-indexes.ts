import type { Kysely } from 'kysely';

/** Lists are ordered by name within a tenant; without this a page of 25 sorts every row. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ix_destinations__tenant_id__name').on('destinations').columns(['tenant_id', 'name']).execute();
  await db.schema.createIndex('ix_users__name').on('users').column('name').execute();
}
