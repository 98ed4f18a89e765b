/**
 * A plan's statistics for one of its versions (`GET /stats/plans/:id?plan_version=`, docs/rollouts.md,
 * "Statistics per version"). The rollups know no version, so these are counted from the reports of
 * the sessions that met that version in the period, by starting in the plan or entering it through
 * `call_plan` (plan-version-sessions.ts, the rollout results' rule; index range reads), exactly as the
 * rollups count a report (stats-rollups.ts `rollupRows`): the counters by disposition and channel,
 * every path entry once as `entered`, the last block as `ended`, each key pressed. Test sessions
 * are left out, as from the rollups.
 */
import type { StatsPlanDetail } from '@voxplan/contracts';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { HOUR_MS, jsonElements, ROLLED_UP_DISPOSITIONS } from '../../db/stats-rollups.ts';
import { metVersion, type PlanVersionSessions, planVersionSessions } from './plan-version-sessions.ts';

export interface VersionPeriod {
  tenantId: number | undefined;
  planId: number;
  fromHour: number;
  toHour: number;
}

/** The period's whole hours (as the rollups bucket them), as the sessions' start range. */
function rangeOf(period: VersionPeriod): Omit<PlanVersionSessions, 'versions'> {
  return { tenantId: period.tenantId, planId: period.planId, from: new Date(period.fromHour * HOUR_MS).toISOString(), to: new Date(period.toHour * HOUR_MS).toISOString() };
}

/** The version's sessions of the period, as `c` joined to their reports `r`: those that started in the plan at it and those that entered it through `call_plan`. */
const sessionsOf = (period: VersionPeriod, version: number) => planVersionSessions({ ...rangeOf(period), versions: [version] });

/**
 * The versions the plan's sessions of the period met (started in, or entered through `call_plan`),
 * oldest first: more than one, and the console offers to pick. Index probes per published version
 * (its first session in the period), not a read of the period's reports: a year of a busy plan is
 * millions of them, a plan's versions tens.
 */
export async function versionsRun(db: Kysely<Database>, period: VersionPeriod): Promise<number[]> {
  const rows = await db
    .selectFrom('visual_plan_versions as v')
    .select('v.version')
    .where('v.plan_id', '=', period.planId)
    .where(metVersion(rangeOf(period), sql.ref('v.version')))
    .orderBy('v.version')
    .execute();
  return rows.map((row) => row.version);
}

/** The counters the rollups keep (stats.service.ts COUNTERS), summed over the version's sessions. */
export async function versionCounters(db: Kysely<Database>, period: VersionPeriod, version: number): Promise<Record<string, unknown>> {
  const dispositions = ROLLED_UP_DISPOSITIONS.map((name) => sql`sum(case when r.disposition = ${name} then 1 else 0 end) as ${sql.ref(name)}`);
  const { rows } = await sql<Record<string, unknown>>`
    select count(*) as sessions,
      sum(case when r.channel = 'voice' then 1 else 0 end) as voice,
      sum(case when r.channel = 'chat' then 1 else 0 end) as chat,
      ${sql.join(dispositions)},
      sum(coalesce(r.duration_s, 0)) as duration_s
    from ${sessionsOf(period, version)}`.execute(db);
  return rows[0]!;
}

/**
 * The blocks entered and ended at, and the keys pressed, over the version's sessions: of a session
 * that started in the plan, every block (those of plans it called included, as in the rollups); of
 * one that entered it through `call_plan`, the plan's own blocks only (the calling plan's are not
 * this plan's figures).
 */
export async function versionBlocks(db: Kysely<Database>, dialect: DialectName, period: VersionPeriod, version: number): Promise<Pick<StatsPlanDetail, 'nodes' | 'digits'>> {
  const sessions = sessionsOf(period, version);
  const nodes = jsonElements(dialect, 'r.nodes');
  const digits = jsonElements(dialect, 'r.pressed_digits');
  const own = (planId: RawBuilder<unknown>) => sql`(c.entered = 0 or ${planId} = ${period.planId})`;
  // `jsonElements` gives fixed SQL text (no request value in it); the values travel as parameters.
  const [blockRows, digitRows] = await Promise.all([
    sql<{ plan_id: number | string; node_id: string; entered: number | string; ended: number | string }>`
      select plan_id, node_id, sum(entered) as entered, sum(ended) as ended from (
        select ${sql.raw(nodes.number('plan_id'))} as plan_id, ${sql.raw(nodes.text('node_id'))} as node_id, 1 as entered, 0 as ended
        from ${sessions} ${sql.raw(nodes.from)} where ${own(sql.raw(nodes.number('plan_id')))}
        union all
        select r.last_node_plan_id, r.last_node_id, 0, 1 from ${sessions} where r.last_node_id is not null and ${own(sql.ref('r.last_node_plan_id'))}
      ) x group by plan_id, node_id`.execute(db),
    sql<{ plan_id: number | string; node_id: string; digits: string; count: number | string }>`
      select ${sql.raw(digits.number('plan_id'))} as plan_id, ${sql.raw(digits.text('node_id'))} as node_id, ${sql.raw(digits.text('digits'))} as digits, count(*) as count
      from ${sessions} ${sql.raw(digits.from)} where ${own(sql.raw(digits.number('plan_id')))}
      group by 1, 2, 3`.execute(db),
  ]);
  return {
    nodes: blockRows.rows.map((row) => ({ plan_id: Number(row.plan_id), node_id: row.node_id, entered: Number(row.entered), ended: Number(row.ended) })),
    digits: digitRows.rows.map((row) => ({ plan_id: Number(row.plan_id), node_id: row.node_id, digits: row.digits, count: Number(row.count) })),
  };
}
