import { maxId } from '@voxplan/contracts';
import type { DestinationLookup } from '@voxplan/engine';
import type { Kysely, Selectable } from 'kysely';
import { prepareQuery } from '../../db/prepared.ts';
import type { ReadCache } from '../../db/read-cache.ts';
import type { Database, DestinationTable } from '../../db/schema.ts';

// Every destination block a call reaches asks it: built and compiled once.
const selectDestination = prepareQuery<{ id: number; tenant_id: number }, Pick<Selectable<DestinationTable>, 'id' | 'name' | 'kind' | 'uri'>>((db, values) =>
  db.selectFrom('destinations').select(['id', 'name', 'kind', 'uri']).where('id', '=', values.id).where('tenant_id', '=', values.tenant_id),
);

/**
 * The engine's DestinationLookup port: what the `destination` block dials or hands a chat to.
 * Through the read cache: a plan's few destinations are dialled call after call and rarely edited.
 */
export function createDestinationLookup(db: Kysely<Database>, readCache: ReadCache): DestinationLookup {
  return {
    // Not async: a destination kept in the read cache is answered without a promise (EnginePorts).
    find(tenantId, destinationId) {
      // The id comes from a plan document: one that cannot be a row id names no destination.
      if (![tenantId, destinationId].every((id) => Number.isInteger(id) && id > 0 && id <= maxId)) return undefined;
      return readCache.readMaybeNow(`destination\u0000${tenantId}\u0000${destinationId}`, ['destinations'], async () => (await selectDestination(db, { id: destinationId, tenant_id: tenantId })).rows[0]);
    },
  };
}
