import { type SystemSettingName, systemSettingValue } from '@voxplan/contracts';
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
