import { maxId } from '@voxplan/contracts';
import type { DestinationLookup } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The engine's DestinationLookup port: what the `destination` block dials or hands a chat to. */
export function createDestinationLookup(db: Kysely<Database>): DestinationLookup {
  return {
    async find(tenantId, destinationId) {
      // The id comes from a plan document: one that cannot be a row id names no destination.
      if (![tenantId, destinationId].every((id) => Number.isInteger(id) && id > 0 && id <= maxId)) return undefined;
      return db
        .selectFrom('destinations')
        .select(['id', 'name', 'kind', 'uri'])
        .where('id', '=', destinationId)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
    },
  };
}
