import type { Kysely } from 'kysely';

/**
 * What the AI cost guard counts (modules/ai/cost-guard.ts), kept in the database so that every
 * instance of one database enforces the same limits: a tenant's requests per minute (minutes
 * since 1970, UTC), and the tokens each session's answers used. Both are pruned by the guard itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ai_tenant_minutes')
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('minute', 'integer', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_ai_tenant_minutes', ['tenant_id', 'minute'])
    .execute();
  await db.schema
    .createTable('ai_session_tokens')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('tokens', 'integer', (c) => c.notNull())
    .addColumn('updated_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ix_ai_session_tokens__updated_time').on('ai_session_tokens').column('updated_time').execute();
}
