import type { Kysely } from 'kysely';

/**
 * The licence (docs/licence.md): at most one row (id 1), the signed document as activated and what
 * happened to it since. The document is checked again whenever it is read, so nothing derived from
 * it (limits, expiry) is stored apart from it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('license')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('activated_time', 'text', (c) => c.notNull())
    .addColumn('activated_by', 'text')
    .addColumn('last_sync_time', 'text')
    .addColumn('last_sync_result', 'text')
    .execute();
}
