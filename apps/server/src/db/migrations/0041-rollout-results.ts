import type { Kysely } from 'kysely';

/**
 * Issue 41, goals, results per version and automatic rollback (docs/rollouts.md):
 * - the report keeps the name of the first goal its session reached, so results count conversions
 *   without walking paths;
 * - a rollout's results read its plan's reports of two versions since it started: an index keyed so;
 * - `auto_rollback_due_time`: when a running rollout's rule is next checked. The instance that moves
 *   it forward, only if it still holds what it read, checks that rollout, so two never both do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('call_reports').addColumn('goal', 'text').execute();
  await db.schema.createIndex('ix_call_reports__plan_id__plan_version__start_time').on('call_reports').columns(['plan_id', 'plan_version', 'start_time']).execute();
  await db.schema.alterTable('plan_rollouts').addColumn('auto_rollback_due_time', 'text').execute();
}
