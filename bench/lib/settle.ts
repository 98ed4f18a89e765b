import { type Kysely, sql } from 'kysely';
import type { Database } from '../../apps/server/src/db/schema.ts';

/**
 * What a seed left, done before the measured rounds: the WAL checkpointed (SQLite) and the garbage
 * collected, in every bench server alike, so that neither lands in one side's first rounds and not
 * the other's (bench/README.md, "Issue 40, fifth pass").
 */
export async function settleServer(database: { dialect: string; db: Kysely<Database> } | undefined, collectGarbage: () => void): Promise<void> {
  if (database?.dialect === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db);
  collectGarbage();
  collectGarbage();
}
