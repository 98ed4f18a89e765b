import type { ProtocolGenerator } from '@voxplan/engine';
import { prepareQuery } from '../../db/prepared.ts';
import type { TransactionRunner } from '../../db/write-batch.ts';

/**
 * How many numbers one upsert reserves. The upsert was a unit of the write batch of its own, before
 * the start's, on every call that draws a number (bench/README.md, bench:budget); reserved sixteen
 * at a time it is one call in sixteen. What a restart leaves unused is a gap, as a lost turn's is.
 */
export const PROTOCOLS_RESERVED = 16;

const reserveNumbers = prepareQuery<{ tenant_id: number; day: string }, { value: number }>((db, values) =>
  db
    .insertInto('protocol_counters')
    .values({ ...values, value: PROTOCOLS_RESERVED })
    .onConflict((oc) => oc.columns(['tenant_id', 'day']).doUpdateSet((eb) => ({ value: eb('protocol_counters.value', '+', PROTOCOLS_RESERVED) })))
    .returning('value'),
);

/** The numbers of one tenant's day this instance reserved and has not handed out yet. */
interface Reserved {
  day: string;
  next: number;
  last: number;
  /** The upsert under way that reserves the next numbers, which every caller in between waits for. */
  reserving: Promise<void> | null;
}

/**
 * Protocol numbers `YYYYMMDD-NNNNNN` (blocks.md, `start`): the UTC day, then a counter per tenant
 * and day. One upsert raises the counter by PROTOCOLS_RESERVED and reads it back: the numbers up to
 * it are this instance's, so two instances never hand out the same number. Numbers are unique,
 * not gapless: a turn that lost its race (docs/sessions.md) has used one, and a stopped instance
 * leaves the rest of its reservation unused. Within an instance they are handed out in order.
 */
export function createProtocolGenerator(writes: TransactionRunner): ProtocolGenerator {
  // One entry a tenant: a new day replaces the last one's.
  const reserved = new Map<number, Reserved>();

  function reserve(tenantId: number, entry: Reserved): Promise<void> {
    const reserving = writes
      .runStatement((db) => reserveNumbers(db, { tenant_id: tenantId, day: entry.day }))
      .then(({ rows: [row] }) => {
        if (!row) throw new Error(`no protocol counter for tenant ${tenantId} on ${entry.day}`);
        entry.next = row.value - PROTOCOLS_RESERVED + 1;
        entry.last = row.value;
      })
      .finally(() => {
        entry.reserving = null;
      });
    entry.reserving = reserving;
    return reserving;
  }

  return {
    async next(tenantId, at) {
      const day = at.toISOString().slice(0, 10).replaceAll('-', '');
      let entry = reserved.get(tenantId);
      if (entry?.day !== day) {
        // A call still on the previous day's numbers keeps the entry it holds; the new day takes the tenant's place.
        entry = { day, next: 1, last: 0, reserving: null };
        reserved.set(tenantId, entry);
      }
      while (entry.next > entry.last) await (entry.reserving ?? reserve(tenantId, entry));
      return `${day}-${String(entry.next++).padStart(6, '0')}`;
    },
  };
}
