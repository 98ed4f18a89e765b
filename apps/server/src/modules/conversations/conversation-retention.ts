/**
 * Conversations' retention (docs/conversations.md, "Retention"), a step of every retention pass:
 * closed conversations whose close is older than the general setting `conversations_retention_days`
 * are deleted with their messages and files, a batch per transaction. Open and waiting ones stay,
 * whatever their age: a person still holds them, or they wait for one.
 */
import { type Kysely, sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { sharedTransactionRunner } from '../../db/write-batch.ts';

const BATCH = 500;

/**
 * Deletes the conversations closed before `before`; answers how many. `lockKey`: on PostgreSQL each
 * batch first takes this advisory lock, and while another instance holds it this pass deletes no more.
 */
export async function pruneClosedConversations(
  ctx: Pick<AppContext, 'db' | 'dialect'>,
  before: string,
  options: { lockKey: number; batch?: number; signal?: AbortSignal },
): Promise<number> {
  const batch = options.batch ?? BATCH;
  const writes = sharedTransactionRunner(ctx.db, ctx.dialect);
  let total = 0;
  let taken: number | null = batch;
  while (taken === batch && options.signal?.aborted !== true) {
    taken = await writes.run(async (trx: Kysely<Database>): Promise<number | null> => {
      if (ctx.dialect === 'postgres') {
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${options.lockKey}) as locked`.execute(trx);
        if (!rows[0]?.locked) return null;
      }
      const ids = (await trx.selectFrom('conversations').select('id').where('status', '=', 'closed').where('closed_at', '<', before).orderBy('closed_at').limit(batch).execute()).map((row) => row.id);
      if (ids.length === 0) return 0;
      // Explicitly, not by the foreign keys' cascade: SQLite enforces those only when asked to.
      await trx.deleteFrom('conversation_attachments').where('conversation_id', 'in', ids).execute();
      await trx.deleteFrom('conversation_messages').where('conversation_id', 'in', ids).execute();
      await trx.deleteFrom('conversations').where('id', 'in', ids).execute();
      total += ids.length;
      return ids.length;
    });
  }
  return total;
}
