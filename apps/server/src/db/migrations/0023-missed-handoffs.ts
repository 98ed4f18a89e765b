import type { Kysely } from 'kysely';
import { rebuildStatsRollups } from '../stats-rollups.ts';
import type { DialectName } from '../database.ts';
import type { Database } from '../schema.ts';

/**
 * The disposition `missed` (docs/handoff.md, "Outcomes"): a chat nobody took. Counted in a column of
 * its own beside the others; the rollups are then made again from the stored reports (also the
 * first fill of 0012's tables). Reports stored before keep the disposition they ended with.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    for (const table of ['stats_tenants', 'stats_sessions']) {
      await db.schema.alterTable(table).addColumn('missed', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    }
    await rebuildStatsRollups(db as Kysely<Database>, dialect);
  };
}
