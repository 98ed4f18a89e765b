import type { Kysely } from 'kysely';

/**
 * Issue 36: a transfer not accepted in time goes back (docs/conversations.md, "Transfer deadline"),
 * and closed conversations are deleted past their retention ("Retention"): the transfer's deadline
 * and the agent it came from, and the indexes the two sweeps read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversations').addColumn('transfer_deadline_at', 'text').execute();
  // No reference: a removed user leaves a stale id, read as an agent who is not online.
  await db.schema.alterTable('conversations').addColumn('transferred_from', 'integer').execute();
  await db.schema.createIndex('ix_conversations__transfer_deadline_at').on('conversations').column('transfer_deadline_at').execute();
  await db.schema.createIndex('ix_conversations__status__closed_at').on('conversations').columns(['status', 'closed_at']).execute();
}
