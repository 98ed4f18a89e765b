import type { ProtocolGenerator } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * Protocol numbers `YYYYMMDD-NNNNNN` (blocks.md, `start`): the UTC day, then a counter per tenant
 * and day. One upsert raises the counter and reads it back, so two instances never hand out the
 * same number. Numbers are unique, not gapless: a turn that lost its race (docs/sessions.md)
 * has used one.
 */
export function createProtocolGenerator(db: Kysely<Database>): ProtocolGenerator {
  return {
    async next(tenantId, at) {
      const day = at.toISOString().slice(0, 10).replaceAll('-', '');
      const row = await db
        .insertInto('protocol_counters')
        .values({ tenant_id: tenantId, day, value: 1 })
        .onConflict((oc) => oc.columns(['tenant_id', 'day']).doUpdateSet((eb) => ({ value: eb('protocol_counters.value', '+', 1) })))
        .returning('value')
        .executeTakeFirstOrThrow();
      return `${day}-${String(row.value).padStart(6, '0')}`;
    },
  };
}
