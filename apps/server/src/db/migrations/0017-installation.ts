import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * The installation (docs/licence.md): one row (id 1) holding the id a licence is bound to. Made
 * here, once per database, so every instance on it reads the same id whatever machine it runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('installation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('installation_id', 'text', (c) => c.notNull())
    .addColumn('created_time', 'text', (c) => c.notNull())
    .execute();
  await (db as Kysely<{ installation: { id: number; installation_id: string; created_time: string } }>)
    .insertInto('installation')
    .values({ id: 1, installation_id: randomUUID(), created_time: new Date().toISOString() })
    .execute();
}
