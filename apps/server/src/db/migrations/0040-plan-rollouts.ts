import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Issue 41, staged rollouts (docs/rollouts.md): a published version put before a share of sessions
 * while the rest keep the plan's published one. `plan_rollouts` keeps every rollout (the history the
 * versions drawer lists); the running one is also copied onto its plan's row (`rollout_*`), because
 * a call's first turn reads that row already (the plan cache): the choice costs no other read, and
 * a write to it reaches every instance's cache as any plan write does.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('plan_rollouts'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('plan_id', 'integer', (c) => c.notNull().references('visual_plans.id').onDelete('cascade'))
      .addColumn('base_version', 'integer', (c) => c.notNull())
      .addColumn('candidate_version', 'integer', (c) => c.notNull())
      // Percent, 0–100; 0: the pinned contacts only.
      .addColumn('share', 'integer', (c) => c.notNull())
      // JSON array of contact keys (E.164 numbers, web chat visitor ids).
      .addColumn('pinned', 'text', (c) => c.notNull())
      // JSON { goal_worse, max_failure_rate } or null (helper RG's automatic rollback reads it).
      .addColumn('auto_rollback', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('ended_reason', 'text')
      .addColumn('ended_note', 'text')
      .addColumn('started_time', 'text', (c) => c.notNull())
      .addColumn('started_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('ended_time', 'text')
      .addColumn('ended_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    // At most one running rollout per plan, whoever starts it on whichever instance.
    await db.schema
      .createIndex('ux_plan_rollouts__plan_id__running')
      .unique()
      .on('plan_rollouts')
      .column('plan_id')
      .where(sql<boolean>`state = 'running'`)
      .execute();
    await db.schema.createIndex('ix_plan_rollouts__plan_id__started_time').on('plan_rollouts').columns(['plan_id', 'started_time']).execute();
    // The running rollout as the choice reads it; all null when none runs.
    await db.schema.alterTable('visual_plans').addColumn('rollout_version', 'integer').execute();
    await db.schema.alterTable('visual_plans').addColumn('rollout_share', 'integer').execute();
    await db.schema.alterTable('visual_plans').addColumn('rollout_pinned', 'text').execute();
  };
}
