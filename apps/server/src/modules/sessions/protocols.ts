import type { ProtocolGenerator } from '@voxplan/engine';
import { prepareQuery } from '../../db/prepared.ts';
import type { TransactionRunner } from '../../db/write-batch.ts';

const raiseCounter = prepareQuery<{ tenant_id: number; day: string }, { value: number }>((db, values) =>
  db
    .insertInto('protocol_counters')
    .values({ ...values, value: 1 })
    .onConflict((oc) => oc.columns(['tenant_id', 'day']).doUpdateSet((eb) => ({ value: eb('protocol_counters.value', '+', 1) })))
    .returning('value'),
);

/**
 * Protocol numbers `YYYYMMDD-NNNNNN` (blocks.md, `start`): the UTC day, then a counter per tenant
 * and day. One upsert raises the counter and reads it back, so two instances never hand out the
 * same number. Numbers are unique, not gapless: a turn that lost its race (docs/sessions.md)
 * has used one.
 */
export function createProtocolGenerator(writes: TransactionRunner): ProtocolGenerator {
  return {
    async next(tenantId, at) {
      const day = at.toISOString().slice(0, 10).replaceAll('-', '');
      const [row] = (await writes.runStatement((db) => raiseCounter(db, { tenant_id: tenantId, day }))).rows;
      if (!row) throw new Error(`no protocol counter for tenant ${tenantId} on ${day}`);
      return `${day}-${String(row.value).padStart(6, '0')}`;
    },
  };
}
