/**
 * The sessions that met a plan at some of its versions (docs/rollouts.md, "Results per version"
 * and "Statistics per version"): those that started in it at the version (the report's `plan_id`
 * and `plan_version`) and those that entered it through `call_plan` at the version
 * (`call_report_plans`, migration 0042). One rule, read by the rollout's results and by the plan's
 * statistics per version alike. Each side is a range of an index keyed `(plan_id, plan_version,
 * start_time)` (migrations 0041 and 0042).
 */
import { type RawBuilder, sql } from 'kysely';

export interface PlanVersionSessions {
  /** Undefined: every tenant's (the administrator's statistics of all tenants). */
  tenantId: number | undefined;
  planId: number;
  versions: readonly number[];
  /** The sessions' start, ISO: from (included), to (left out; undefined: no end). */
  from: string;
  to: string | undefined;
}

/**
 * The tenant and start range, on either side's alias. The tenant is compared as `+tenant_id`, an
 * expression no index serves: SQLite's planner, which has no statistics, otherwise reads a
 * tenant's reports of the period by `(tenant_id, start_time)` rather than the plan's version by
 * `(plan_id, plan_version, start_time)` (seen with EXPLAIN QUERY PLAN); PostgreSQL reads the latter either way.
 */
function within(range: Omit<PlanVersionSessions, 'versions'>, alias: 's' | 'p'): RawBuilder<unknown> {
  const tenant = range.tenantId === undefined ? sql`` : sql` and +${sql.ref(`${alias}.tenant_id`)} = ${range.tenantId}`;
  const to = range.to === undefined ? sql`` : sql` and ${sql.ref(`${alias}.start_time`)} < ${range.to}`;
  return sql`${tenant} and ${sql.ref(`${alias}.start_time`)} >= ${range.from}${to}`;
}

/**
 * The sessions as `c` (`id` of the report, the `version` of the plan it met, the `goal` that
 * counts for that plan, and `entered`: 1 when it came through `call_plan`, 0 when it started
 * there) joined to their reports `r`, for a `from` clause. Test sessions are left out (none has a
 * `call_report_plans` row). A plan cannot call itself, so no session is on both sides; one that
 * entered the plan twice has one row (the table's key), the version it entered first.
 */
export function planVersionSessions(range: PlanVersionSessions): RawBuilder<unknown> {
  const versions = sql`(${sql.join(range.versions.map((version) => sql`${version}`))})`;
  return sql`(
    select s.id, s.plan_version as version, s.goal, 0 as entered from call_reports s
    where s.plan_id = ${range.planId} and s.plan_version in ${versions}${within(range, 's')} and +s.is_test = 0
    union all
    select p.report_id, p.plan_version, p.goal, 1 from call_report_plans p
    where p.plan_id = ${range.planId} and p.plan_version in ${versions}${within(range, 'p')}
  ) c join call_reports r on r.id = c.id`;
}

/**
 * Whether any session of the range met the plan at version `version` (a column of the outer
 * query): one probe of each index, not a read of the period's reports.
 */
export function metVersion(range: Omit<PlanVersionSessions, 'versions'>, version: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`(exists (select 1 from call_reports s where s.plan_id = ${range.planId} and s.plan_version = ${version}${within(range, 's')} and +s.is_test = 0)
    or exists (select 1 from call_report_plans p where p.plan_id = ${range.planId} and p.plan_version = ${version}${within(range, 'p')}))`;
}
