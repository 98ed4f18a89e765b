import type { Kysely } from 'kysely';

/**
 * Calls and chats the licence refused (license_sessions_limit_reached): they never become a
 * session, so this is the only place the dashboard's system status can count them from, on every
 * instance alike. Kept for the dashboard's window only: the licence service prunes older rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('session_refusals')
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ix_session_refusals__created_time').on('session_refusals').column('created_time').execute();
}
