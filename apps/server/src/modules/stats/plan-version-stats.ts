/**
 * A plan's statistics for one of its versions (`GET /stats/plans/:id?plan_version=`, docs/rollouts.md,
 * "Statistics per version"). The rollups know no version, so these are counted from the plan's
 * reports of that version started in the period (the index on `call_reports (plan_id, plan_version,
 * start_time)` keeps it a range read), exactly as the rollups count a report (stats-rollups.ts
 * `rollupRows`): the counters by disposition and channel, every path entry once as `entered`, the
 * last block as `ended`, each key pressed. Test sessions are left out, as from the rollups.
 */
import type { StatsPlanDetail } from '@voxplan/contracts';
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { HOUR_MS, jsonElements, ROLLED_UP_DISPOSITIONS } from '../../db/stats-rollups.ts';

export interface VersionPeriod {
  tenantId: number | undefined;
  planId: number;
  fromHour: number;
  toHour: number;
}

/** The reports of the period's whole hours (as the rollups bucket them), of the plan, tests left out. */
function reportsIn(period: VersionPeriod) {
  const tenant = period.tenantId === undefined ? sql`` : sql` and r.tenant_id = ${period.tenantId}`;
  const from = new Date(period.fromHour * HOUR_MS).toISOString();
  const to = new Date(period.toHour * HOUR_MS).toISOString();
  return sql<boolean>`r.plan_id = ${period.planId}${tenant} and r.is_test = 0 and r.start_time >= ${from} and r.start_time < ${to}`;
}

/**
 * The versions the plan's sessions of the period ran, oldest first: more than one, and the console
 * offers to pick. One index probe per published version (its first report in the period), not a
 * read of the period's reports: a year of a busy plan is millions of them, a plan's versions tens.
 */
export async function versionsRun(db: Kysely<Database>, period: VersionPeriod): Promise<number[]> {
  const rows = await db
    .selectFrom('visual_plan_versions as v')
    .select('v.version')
    .where('v.plan_id', '=', period.planId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom(sql`call_reports`.as('r'))
          .select(sql`1`.as('one'))
          .where(reportsIn(period))
          .where(sql<boolean>`r.plan_version = v.version`),
      ),
    )
    .orderBy('v.version')
    .execute();
  return rows.map((row) => row.version);
}

/** The counters the rollups keep (stats.service.ts COUNTERS), summed over the version's reports. */
export async function versionCounters(db: Kysely<Database>, period: VersionPeriod, version: number): Promise<Record<string, unknown>> {
  return db
    .selectFrom(sql`call_reports`.as('r'))
    .select([
      sql`count(*)`.as('sessions'),
      sql`sum(case when r.channel = 'voice' then 1 else 0 end)`.as('voice'),
      sql`sum(case when r.channel = 'chat' then 1 else 0 end)`.as('chat'),
      ...ROLLED_UP_DISPOSITIONS.map((name) => sql`sum(case when r.disposition = ${name} then 1 else 0 end)`.as(name)),
      sql`sum(coalesce(r.duration_s, 0))`.as('duration_s'),
    ])
    .where(reportsIn(period))
    .where(sql`r.plan_version`, '=', version)
    .executeTakeFirstOrThrow() as Promise<Record<string, unknown>>;
}

/** The blocks entered and ended at, and the keys pressed, over the version's reports (blocks of plans it called included, as in the rollups). */
export async function versionBlocks(db: Kysely<Database>, dialect: DialectName, period: VersionPeriod, version: number): Promise<Pick<StatsPlanDetail, 'nodes' | 'digits'>> {
  const filter = sql<boolean>`${reportsIn(period)} and r.plan_version = ${version}`;
  const nodes = jsonElements(dialect, 'r.nodes');
  const digits = jsonElements(dialect, 'r.pressed_digits');
  // `jsonElements` gives fixed SQL text (no request value in it); the values travel as parameters.
  const [blockRows, digitRows] = await Promise.all([
    sql<{ plan_id: number | string; node_id: string; entered: number | string; ended: number | string }>`
      select plan_id, node_id, sum(entered) as entered, sum(ended) as ended from (
        select ${sql.raw(nodes.number('plan_id'))} as plan_id, ${sql.raw(nodes.text('node_id'))} as node_id, 1 as entered, 0 as ended
        from call_reports r ${sql.raw(nodes.from)} where ${filter}
        union all
        select r.last_node_plan_id, r.last_node_id, 0, 1 from call_reports r where ${filter} and r.last_node_id is not null
      ) x group by plan_id, node_id`.execute(db),
    sql<{ plan_id: number | string; node_id: string; digits: string; count: number | string }>`
      select ${sql.raw(digits.number('plan_id'))} as plan_id, ${sql.raw(digits.text('node_id'))} as node_id, ${sql.raw(digits.text('digits'))} as digits, count(*) as count
      from call_reports r ${sql.raw(digits.from)} where ${filter}
      group by 1, 2, 3`.execute(db),
  ]);
  return {
    nodes: blockRows.rows.map((row) => ({ plan_id: Number(row.plan_id), node_id: row.node_id, entered: Number(row.entered), ended: Number(row.ended) })),
    digits: digitRows.rows.map((row) => ({ plan_id: Number(row.plan_id), node_id: row.node_id, digits: row.digits, count: Number(row.count) })),
  };
}
