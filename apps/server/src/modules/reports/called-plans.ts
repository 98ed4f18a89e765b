import type { CallReportCalledPlan } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * The plans each report's session entered through `call_plan` (`call_report_plans`, docs/rollouts.md),
 * in the order it entered them, each named as it was when the version it ran was published (as a
 * report keeps its own plan's name then); else as it is now. One query for a page of reports: a
 * session without `call_plan` has no row.
 */
export async function calledPlansOf(db: Kysely<Database>, reportIds: number[]): Promise<Map<number, CallReportCalledPlan[]>> {
  const byReport = new Map<number, CallReportCalledPlan[]>();
  if (reportIds.length === 0) return byReport;
  const rows = await db
    .selectFrom('call_report_plans as p')
    .leftJoin('visual_plan_versions as v', (join) => join.onRef('v.plan_id', '=', 'p.plan_id').onRef('v.version', '=', 'p.plan_version'))
    .leftJoin('visual_plans as plan', 'plan.id', 'p.plan_id')
    .select(['p.report_id', 'p.plan_id', 'p.plan_version', 'p.goal', 'v.name as version_name', 'plan.name as plan_name'])
    .where('p.report_id', 'in', reportIds)
    .execute();
  for (const row of rows) {
    const list = byReport.get(row.report_id) ?? [];
    list.push({ plan_id: row.plan_id, plan_name: row.version_name ?? row.plan_name ?? null, plan_version: row.plan_version, goal: row.goal });
    byReport.set(row.report_id, list);
  }
  return byReport;
}
