import type { Kysely } from 'kysely';

/**
 * A tenant's language (BCP 47, from the voices list): what its plans speak when they name none,
 * and what its system messages are said in. Empty: the server's (`DEFAULT_LANGUAGE`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('tenants')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
