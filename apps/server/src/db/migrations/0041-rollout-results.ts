import type { Kysely } from 'kysely';

/**
 * Issue 41, goals and results per version (docs/rollouts.md): the report keeps the name of the
 * first goal its session reached, so results count conversions without walking paths.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('call_reports').addColumn('goal', 'text').execute();
}
