import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** A general setting's value as stored now, so that a change applies without a restart. */
export async function settingValue(db: Kysely<Database>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('configurations').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}
