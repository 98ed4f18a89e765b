import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/** The tables whose rows carry a due time that instances claim (a periodic job run on one instance at a time). */
type DueColumns = { numbers: 'whatsapp_templates_due_at'; plan_rollouts: 'auto_rollback_due_time' };

/**
 * Claims the rows read as due, each by moving its due time to `next` only if it still holds the
 * time read: of two instances reading the same row, one moves it, the other finds it moved and
 * leaves it. No lock, so it holds on SQLite and on PostgreSQL alike. Answers the ids claimed.
 */
export async function claimDue<Table extends keyof DueColumns>(
  db: Kysely<Database>,
  table: Table,
  column: DueColumns[Table],
  rows: readonly { id: number; due: string | null }[],
  next: string,
): Promise<number[]> {
  const claimed: number[] = [];
  for (const row of rows) {
    const held = row.due === null ? sql`${sql.ref(column)} is null` : sql`${sql.ref(column)} = ${row.due}`;
    const update = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${next} where id = ${row.id} and ${held}`.execute(db);
    if (Number(update.numAffectedRows ?? 0) === 1) claimed.push(row.id);
  }
  return claimed;
}
