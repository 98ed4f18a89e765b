/**
 * The period statistics (docs/api.md, "Statistics"), summed from the hourly rollups
 * (db/stats-rollups.ts): a period costs the hours it spans, whatever the history kept.
 */
import type { StatsDaily, StatsFigures, StatsPlanDetail, StatsPlans, StatsSummary } from '@voxplan/contracts';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { IANAZone } from 'luxon';
import type { DialectName } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { HOUR_MS } from '../../db/stats-rollups.ts';
import { versionBlocks, versionCounters, type VersionPeriod, versionsRun } from './plan-version-stats.ts';

/** The longest period asked for at once: a year and a bit, so that "this year" and "last 12 months" fit. */
export const MAX_PERIOD_DAYS = 400;

/** A period as the rollups are read: hours since 1970 (db/stats-rollups.ts `hourOf`), `fromHour` inclusive, `toHour` exclusive. */
export interface StatsPeriod {
  fromHour: number;
  toHour: number;
  /** IANA time zone. */
  zone: string;
  /** Only these plans; undefined: every plan. */
  planIds?: number[];
}

const floorHour = (ms: number): number => Math.floor(ms / HOUR_MS);
const isoOfHour = (hour: number): string => new Date(hour * HOUR_MS).toISOString();

/**
 * Checks a period's terms beyond their form (the query schema checks that): a known time zone,
 * `to` after `from`, at most MAX_PERIOD_DAYS. Rollups are hourly, so both ends are taken at the
 * start of their hour.
 */
export function periodOf(query: { from: string; to: string; tz: string; plan_id?: number[] | undefined }): StatsPeriod {
  if (!IANAZone.isValidZone(query.tz)) throw badRequest('invalid_input', [{ path: 'querystring.tz', message: 'expected an IANA time zone, such as America/Sao_Paulo' }]);
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  if (to <= from) throw badRequest('stats_period_invalid', [{ path: 'querystring.to', message: 'must be after from' }]);
  if (to - from > MAX_PERIOD_DAYS * 24 * HOUR_MS) {
    throw new AppError(400, 'stats_period_too_long', [{ path: 'querystring.to', message: `at most ${MAX_PERIOD_DAYS} days after from` }], undefined, {
      maxDays: MAX_PERIOD_DAYS,
    });
  }
  return { fromHour: floorHour(from), toHour: floorHour(to), zone: query.tz, ...(query.plan_id && { planIds: query.plan_id }) };
}

export type Counter = 'sessions' | 'voice' | 'chat' | 'routed' | 'retained' | 'abandoned' | 'failed' | 'expired' | 'missed' | 'duration_s';
export const COUNTERS: readonly Counter[] = ['sessions', 'voice', 'chat', 'routed', 'retained', 'abandoned', 'failed', 'expired', 'missed', 'duration_s'];
/** Sums as the databases answer them: PostgreSQL's are bigint or numeric, sent as text; null over no rows. */
type Sums = Record<Counter, number | string | bigint | null>;

const sums = (eb: ExpressionBuilder<Database, 'stats_tenants'>) => COUNTERS.map((counter) => eb.fn.sum<Sums[Counter]>(counter).as(counter));

const ZERO: Readonly<Record<Counter, number>> = { sessions: 0, voice: 0, chat: 0, routed: 0, retained: 0, abandoned: 0, failed: 0, expired: 0, missed: 0, duration_s: 0 };

/** Adds a row's sums to `total`, in place, and answers it. */
function add(total: Record<Counter, number>, row: Sums): Record<Counter, number> {
  for (const counter of COUNTERS) total[counter] += Number(row[counter] ?? 0);
  return total;
}

export function figuresOf(totals: Record<Counter, number>): StatsFigures {
  const { sessions, voice, chat, routed, retained, abandoned, failed, expired, missed, duration_s } = totals;
  return {
    sessions,
    calls: voice,
    chats: chat,
    routed,
    retained,
    abandoned,
    failed,
    expired,
    missed,
    retention_rate: sessions === 0 ? null : retained / sessions,
    average_duration_s: sessions === 0 ? null : duration_s / sessions,
  };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (`YYYY-MM-DD`) of an instant in a zone. Intl, not luxon: a year of days took luxon 60 to 160 ms. */
function dateIn(zone: string, ms: number): string {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    // Zones are few (the users'); bounded all the same.
    if (formatters.size >= 100) formatters.clear();
    formatters.set(zone, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(ms)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/**
 * The day an hour bucket counts in: the date of its last minute. In a zone of whole hours that is
 * the hour's own date; in one of half or quarter hours, the hour a midnight falls in counts in the
 * day that midnight begins (the contract's "the hour before its midnight").
 */
const dayOfHour = (zone: string, hourMs: number): string => dateIn(zone, hourMs + HOUR_MS - 60_000);

/** A day of the period: its date in the zone and the first hour counted in it (the first day's: the period's). */
interface PeriodDay {
  day: string;
  fromHour: number;
}

/** The days of the period in its zone. */
function daysOf(period: StatsPeriod): PeriodDay[] {
  const { zone } = period;
  const days: PeriodDay[] = [];
  let start = period.fromHour;
  while (start < period.toHour) {
    const day = dayOfHour(zone, start * HOUR_MS);
    days.push({ day, fromHour: start });
    let next: number;
    if (days.length === 1) {
      // The period may begin at any hour of its first day.
      next = start + 1;
      while (next < period.toHour && dayOfHour(zone, next * HOUR_MS) === day) next++;
    } else {
      // A day is 24 hours, or one more or less when the offset changes in it.
      next = start + 24;
      while (dayOfHour(zone, (next - 1) * HOUR_MS) !== day) next--;
      while (dayOfHour(zone, next * HOUR_MS) === day) next++;
    }
    start = next;
  }
  return days;
}

/**
 * The SQL that numbers an hour's day in the period (0 for the first), so that the database sums
 * days rather than sending every hour: runs of 24-hour days are one division each, a day of
 * another length (the period's ends, a change of offset) a number of its own. A year of hourly
 * rows took the server 32 ms of CPU to sum into days; this way it gets at most 400 rows.
 */
function dayIndexSql(days: PeriodDay[], toHour: number): string {
  const branches: string[] = [];
  let index = 0;
  while (index < days.length) {
    const start = days[index]!.fromHour;
    const lengthOf = (i: number) => (days[i + 1]?.fromHour ?? toHour) - days[i]!.fromHour;
    let last = index;
    if (lengthOf(index) === 24) while (last + 1 < days.length && lengthOf(last + 1) === 24) last++;
    const end = days[last + 1]?.fromHour ?? toHour;
    branches.push(`when "hour" < ${end} then ${last > index || lengthOf(index) === 24 ? `${index} + ("hour" - ${start}) / 24` : `${index}`}`);
    index = last + 1;
  }
  return `case ${branches.join(' ')} end`;
}

/** A plan's rows of the block rollups in a part of the period: hours, or whole UTC days. */
interface PeriodPart {
  bucket: 'hour' | 'day';
  /** Inclusive. */
  from: number;
  /** Exclusive. */
  to: number;
}

const partOf = (tenantId: number | undefined, planId: number, part: PeriodPart) => {
  const bucket = sql.ref(part.bucket);
  const tenant = tenantId === undefined ? sql`` : sql` and "tenant_id" = ${tenantId}`;
  return sql<boolean>`"plan_id" = ${planId} and ${bucket} >= ${part.from} and ${bucket} < ${part.to}${tenant}`;
};

/**
 * The statistics a scope reads. `tenantId`: the caller's tenant, or undefined for the
 * administrator over every tenant (plugins/auth.ts `tenantFilterOf`).
 */
const byBlock = (a: { plan_id: number; node_id: string }, b: { plan_id: number; node_id: string }) =>
  a.plan_id - b.plan_id || (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0);
const byKey = (a: StatsPlanDetail['digits'][number], b: StatsPlanDetail['digits'][number]) => byBlock(a, b) || (a.digits < b.digits ? -1 : a.digits > b.digits ? 1 : 0);

export class StatsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  /**
   * The period's counters: per tenant and hour (stats_tenants) for every plan, a twentieth of the
   * rows with twenty plans; per plan (stats_sessions) when the period names plans or `perPlan`.
   */
  private countersIn(tenantId: number | undefined, period: StatsPeriod, perPlan = false) {
    // Typed as stats_tenants: stats_sessions has every column of it, and plan_id, named through sql.ref only where it is read.
    const table = (period.planIds === undefined && !perPlan ? 'stats_tenants' : 'stats_sessions') as 'stats_tenants';
    return this.db
      .selectFrom(table)
      .where('hour', '>=', period.fromHour)
      .where('hour', '<', period.toHour)
      .$if(tenantId !== undefined, (query) => query.where('tenant_id', '=', tenantId!))
      .$if(period.planIds !== undefined, (query) => query.where(sql.ref('plan_id'), 'in', period.planIds!));
  }

  async summary(tenantId: number | undefined, period: StatsPeriod): Promise<StatsSummary> {
    const row = await this.countersIn(tenantId, period).select(sums).executeTakeFirstOrThrow();
    return { from: isoOfHour(period.fromHour), to: isoOfHour(period.toHour), figures: figuresOf(add({ ...ZERO }, row)) };
  }

  async daily(tenantId: number | undefined, period: StatsPeriod): Promise<StatsDaily> {
    const days = daysOf(period);
    // Every number in it is an integer made here from the period, none from the request's text.
    const dayIndex = sql<number>`${sql.raw(dayIndexSql(days, period.toHour))}`;
    const rows = await this.countersIn(tenantId, period).select(dayIndex.as('day_index')).select(sums).groupBy(dayIndex).execute();
    const totals = days.map(() => ({ ...ZERO }));
    for (const row of rows) add(totals[Number(row.day_index)]!, row);
    return { days: days.map(({ day }, i) => ({ day, figures: figuresOf(totals[i]!) })) };
  }

  async plans(tenantId: number | undefined, period: StatsPeriod): Promise<StatsPlans> {
    const planId = sql.ref<number>('plan_id');
    const counted = await this.countersIn(tenantId, period, true).select(planId.as('plan_id')).select(sums).groupBy(planId).execute();
    // A plan under a rollout is listed even when no session started in it (one reached only
    // through call_plan): its row opens its statistics per version, which count those that entered it.
    const listed = new Set(counted.map((row) => row.plan_id));
    const rolledOut = (await this.runningRollouts(tenantId)).filter((id) => !listed.has(id) && (!period.planIds || period.planIds.includes(id)));
    const rows = [...counted, ...rolledOut.map((id) => ({ plan_id: id, ...ZERO }))];
    const rollouts = new Map<number, StatsPlans['plans'][number]['rollout']>();
    const names = await this.planNames(
      tenantId,
      rows.map((row) => row.plan_id),
      rollouts,
    );
    return {
      plans: rows
        .map((row) => ({ plan_id: row.plan_id, plan_name: names.get(row.plan_id) ?? '', figures: figuresOf(add({ ...ZERO }, row)), rollout: rollouts.get(row.plan_id) ?? null }))
        .sort((a, b) => b.figures.sessions - a.figures.sessions || a.plan_id - b.plan_id),
    };
  }

  /** The plans with a running rollout (kept on the plan's row). */
  private async runningRollouts(tenantId: number | undefined): Promise<number[]> {
    let plans = this.db.selectFrom('visual_plans').select('id').where('rollout_version', 'is not', null);
    if (tenantId !== undefined) plans = plans.where('tenant_id', '=', tenantId);
    return (await plans.execute()).map((plan) => plan.id);
  }

  /**
   * Plans' names as they are now; a removed plan's as its last report has it. `rollouts`, when
   * given, gets each plan's running rollout from the same read (the plan's row holds it): the
   * dashboard's rows show it without a request per plan.
   */
  private async planNames(tenantId: number | undefined, planIds: number[], rollouts?: Map<number, StatsPlans['plans'][number]['rollout']>): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    if (planIds.length === 0) return names;
    let plans = this.db.selectFrom('visual_plans').select(['id', 'name', 'published_version', 'rollout_version', 'rollout_share']).where('id', 'in', planIds);
    if (tenantId !== undefined) plans = plans.where('tenant_id', '=', tenantId);
    for (const plan of await plans.execute()) {
      names.set(plan.id, plan.name);
      if (plan.rollout_version !== null && plan.published_version !== null) {
        rollouts?.set(plan.id, { base_version: plan.published_version, candidate_version: plan.rollout_version, share: plan.rollout_share ?? 0 });
      }
    }
    for (const planId of planIds.filter((id) => !names.has(id))) {
      const last = await this.db
        .selectFrom('call_reports')
        .select('plan_name')
        .where('plan_id', '=', planId)
        .orderBy('start_time', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (last) names.set(planId, last.plan_name);
    }
    return names;
  }

  /**
   * The plan's figures, blocks and keys over the period, and the versions it ran then; of one
   * version (`version`) when given, counted from its reports (plan-version-stats.ts).
   */
  async plan(tenantId: number | undefined, planId: number, period: StatsPeriod, version?: number): Promise<StatsPlanDetail> {
    if (!(await this.planIsKnown(tenantId, planId))) throw notFound();
    const versionPeriod = { tenantId, planId, fromHour: period.fromHour, toHour: period.toHour };
    const versions = versionsRun(this.db, versionPeriod);
    const detail = version === undefined ? await this.planFromRollups(tenantId, planId, period) : await this.planVersion(versionPeriod, version);
    return { ...detail, versions: await versions };
  }

  private async planVersion(period: VersionPeriod, version: number): Promise<Omit<StatsPlanDetail, 'versions'>> {
    const [counters, blocks] = await Promise.all([versionCounters(this.db, period, version), versionBlocks(this.db, this.dialect, period, version)]);
    return { plan_id: period.planId, figures: figuresOf(add({ ...ZERO }, counters as Sums)), nodes: blocks.nodes.sort(byBlock), digits: blocks.digits.sort(byKey) };
  }

  private async planFromRollups(tenantId: number | undefined, planId: number, period: StatsPeriod): Promise<Omit<StatsPlanDetail, 'versions'>> {
    // The whole UTC days of the period come from the daily rows, its ends from the hourly ones: a
    // year of a 20-block plan is 7,300 rows instead of 175,200.
    const firstDay = Math.ceil(period.fromHour / 24);
    const endDay = Math.floor(period.toHour / 24);
    const parts: PeriodPart[] =
      firstDay < endDay
        ? [
            { bucket: 'hour', from: period.fromHour, to: firstDay * 24 },
            { bucket: 'day', from: firstDay, to: endDay },
            { bucket: 'hour', from: endDay * 24, to: period.toHour },
          ]
        : [{ bucket: 'hour', from: period.fromHour, to: period.toHour }];
    const read = parts.filter((part) => part.from < part.to);
    const [summary, nodeParts, digitParts] = await Promise.all([
      this.summary(tenantId, { ...period, planIds: [planId] }),
      Promise.all(
        read.map((part) =>
          this.db
            // Typed as the hourly table: the daily one has its columns, with `day` for `hour` (named in partOf).
            .selectFrom((part.bucket === 'hour' ? 'stats_nodes' : 'stats_nodes_days') as 'stats_nodes')
            .where(partOf(tenantId, planId, part))
            .select(['node_plan_id', 'node_id'])
            .select((eb) => [eb.fn.sum<number | string>('entered').as('entered'), eb.fn.sum<number | string>('ended').as('ended')])
            .groupBy(['node_plan_id', 'node_id'])
            .execute(),
        ),
      ),
      Promise.all(
        read.map((part) =>
          this.db
            .selectFrom((part.bucket === 'hour' ? 'stats_digits' : 'stats_digits_days') as 'stats_digits')
            .where(partOf(tenantId, planId, part))
            .select(['node_plan_id', 'node_id', 'digits'])
            .select((eb) => eb.fn.sum<number | string>('count').as('count'))
            .groupBy(['node_plan_id', 'node_id', 'digits'])
            .execute(),
        ),
      ),
    ]);
    const nodes = new Map<string, StatsPlanDetail['nodes'][number]>();
    for (const row of nodeParts.flat()) {
      const key = `${row.node_plan_id}\u0000${row.node_id}`;
      const node = nodes.get(key) ?? { plan_id: row.node_plan_id, node_id: row.node_id, entered: 0, ended: 0 };
      node.entered += Number(row.entered);
      node.ended += Number(row.ended);
      nodes.set(key, node);
    }
    const digits = new Map<string, StatsPlanDetail['digits'][number]>();
    for (const row of digitParts.flat()) {
      const key = `${row.node_plan_id}\u0000${row.node_id}\u0000${row.digits}`;
      const entry = digits.get(key) ?? { plan_id: row.node_plan_id, node_id: row.node_id, digits: row.digits, count: 0 };
      entry.count += Number(row.count);
      digits.set(key, entry);
    }
    return {
      plan_id: planId,
      figures: summary.figures,
      nodes: [...nodes.values()].sort(byBlock),
      digits: [...digits.values()].sort(byKey),
    };
  }

  /** A plan of the scope, or a removed one whose reports the scope reads. */
  private async planIsKnown(tenantId: number | undefined, planId: number): Promise<boolean> {
    let plan = this.db.selectFrom('visual_plans').select('id').where('id', '=', planId);
    if (tenantId !== undefined) plan = plan.where('tenant_id', '=', tenantId);
    if (await plan.executeTakeFirst()) return true;
    let report = this.db.selectFrom('call_reports').select('id').where('plan_id', '=', planId).limit(1);
    if (tenantId !== undefined) report = report.where('tenant_id', '=', tenantId);
    return (await report.executeTakeFirst()) !== undefined;
  }
}
