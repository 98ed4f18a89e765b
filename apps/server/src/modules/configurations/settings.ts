import { featureNames, type Features, type SystemSettingName, systemSettingValue } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * A system setting's value as stored now, so that a change applies without a restart; its default
 * while the stored text is not one its kind takes (a value written before values were checked).
 */
export async function readSystemSetting<N extends SystemSettingName>(db: Kysely<Database>, name: N): Promise<ReturnType<typeof systemSettingValue<N>>> {
  const row = await db.selectFrom('configurations').select('value').where('name', '=', name).executeTakeFirst();
  return systemSettingValue(name, row?.value);
}

/** Every feature setting, on or off now; `db` may be a transaction's (on SQLite a read outside it would wait for it). */
export async function readFeatures(db: Kysely<Database>): Promise<Features> {
  const rows = await db.selectFrom('configurations').select(['name', 'value']).where('name', 'in', featureNames).execute();
  const stored = new Map(rows.map((row) => [row.name, row.value]));
  return Object.fromEntries(featureNames.map((name) => [name, systemSettingValue(name, stored.get(name))])) as Features;
}
