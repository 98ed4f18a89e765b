import type { Kysely } from 'kysely';

/**
 * Issue 41, results of a plan reached through `call_plan` (docs/rollouts.md, "`call_plan`"): a
 * report keeps the plan the session started in; this keeps the plans it entered through
 * `call_plan`, at the versions it ran and with the goal reached in or after each, so that a called
 * plan's rollout counts those sessions. Written only for a session that called a plan (nothing for
 * any other), and gone with its report (the retention job deletes reports; the key cascades).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('call_report_plans')
    .addColumn('report_id', 'integer', (c) => c.notNull().references('call_reports.id').onDelete('cascade'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('plan_id', 'integer', (c) => c.notNull())
    .addColumn('plan_version', 'integer', (c) => c.notNull())
    // The session's start, as the report's `start_time`: a rollout counts the sessions started while it ran.
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('goal', 'text')
    .addPrimaryKeyConstraint('pk_call_report_plans', ['report_id', 'plan_id'])
    .execute();
  await db.schema.createIndex('ix_call_report_plans__plan_id__plan_version__start_time').on('call_report_plans').columns(['plan_id', 'plan_version', 'start_time']).execute();
}
