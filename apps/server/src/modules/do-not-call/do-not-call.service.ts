import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * What a dial asks of the tenant's do-not-call list (docs/do-not-call.md). Numbers are compared in
 * E.164 as stored: callers bring theirs to it first (lib/phone-numbers.ts, `toE164`).
 */

/** Whether the tenant's list holds the number (E.164). */
export async function isOnDoNotCall(db: Kysely<Database>, tenantId: number, e164: string): Promise<boolean> {
  const row = await db.selectFrom('do_not_call').select('id').where('tenant_id', '=', tenantId).where('number', '=', e164).executeTakeFirst();
  return row !== undefined;
}

// SQLite's bound parameters per statement are limited (32,766 in recent builds, 999 in old ones).
const lookupChunk = 500;

/** Which of the numbers (E.164) the tenant's list holds: a campaign's batch in one go. */
export async function doNotCallAmong(db: Kysely<Database>, tenantId: number, numbers: readonly string[]): Promise<Set<string>> {
  const listed = new Set<string>();
  const distinct = [...new Set(numbers)];
  for (let start = 0; start < distinct.length; start += lookupChunk) {
    const rows = await db
      .selectFrom('do_not_call')
      .select('number')
      .where('tenant_id', '=', tenantId)
      .where('number', 'in', distinct.slice(start, start + lookupChunk))
      .execute();
    for (const row of rows) listed.add(row.number);
  }
  return listed;
}
