/**
 * A rollout's results per version (docs/rollouts.md, "Results per version"). The statistics'
 * rollups know no version, so these are read from the plan's reports of the rollout's two
 * versions since it started (an index keyed so, migration 0041), and from the reports of sessions
 * that entered the plan through `call_plan` (`call_report_plans`, migration 0042), counted as the rollups count
 * them: dispositions by name (stats-rollups.ts), figures by `figuresOf` (the dashboard's), and
 * drop-off as the heat map's block rows (entered per path entry, ended at the last block).
 */
import { blockDefinition } from '@voxplan/blocks/definitions';
import type { Locale, RolloutResults, VersionResult } from '@voxplan/contracts';
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { jsonElements, ROLLED_UP_DISPOSITIONS } from '../../db/stats-rollups.ts';
import { planVersionSessions } from '../stats/plan-version-sessions.ts';
import { COUNTERS, type Counter, figuresOf } from '../stats/stats.service.ts';
import { compareGoalRates } from './results-statistics.ts';
import type { RolloutRow } from './rollout-rows.ts';

/** What a version's sessions add up to, before drop-off. */
export type VersionFigures = Omit<VersionResult, 'drop_off'>;

/**
 * The sessions a rollout counts, as `c` joined to their reports `r` (plan-version-sessions.ts): those
 * that met the plan at either version, by starting in it or entering it through `call_plan`, started
 * while it ran.
 */
function countedSessions(rollout: RolloutRow) {
  return planVersionSessions({
    tenantId: rollout.tenant_id,
    planId: rollout.plan_id,
    versions: [rollout.base_version, rollout.candidate_version],
    from: rollout.started_time,
    to: rollout.ended_time ?? undefined,
  });
}

const count = (value: unknown): number => Number(value ?? 0);

/**
 * A failure: the engine stopped the session, or a hand-off's destination could not be reached
 * (`dial_status` failed). An outbound call the provider could not place is `missed`, not counted:
 * no version ran in it.
 */
const FAILURE = sql`case when r.hangup_cause = 'engine_error' or (r.dial_status = 'failed' and r.disposition <> 'missed') then 1 else 0 end`;

/** Each version's counters, goal and failures, and its median duration. */
export async function versionFigures(db: Kysely<Database>, rollout: RolloutRow): Promise<[VersionFigures, VersionFigures]> {
  const dispositions = ROLLED_UP_DISPOSITIONS.map((name) => sql`sum(case when r.disposition = ${name} then 1 else 0 end) as ${sql.ref(name)}`);
  const { rows } = await sql<Record<string, unknown> & { version: number }>`
    select c.version as version, count(*) as sessions,
      sum(case when r.channel = 'voice' then 1 else 0 end) as voice,
      sum(case when r.channel = 'chat' then 1 else 0 end) as chat,
      ${sql.join(dispositions)},
      sum(r.duration_s) as duration_s,
      sum(case when c.goal is not null then 1 else 0 end) as converted,
      sum(${FAILURE}) as failures
    from ${countedSessions(rollout)}
    group by c.version`.execute(db);
  const byVersion = new Map(rows.map((row) => [Number(row.version), row]));
  const figures = async (version: number, share: number): Promise<VersionFigures> => {
    const row: Record<string, unknown> = byVersion.get(version) ?? {};
    const totals = Object.fromEntries(COUNTERS.map((counter) => [counter, count(row[counter])])) as Record<Counter, number>;
    const { sessions, retained, routed, abandoned } = figuresOf(totals);
    const converted = count(row.converted);
    return {
      version,
      share,
      sessions,
      retained,
      routed,
      abandoned,
      converted,
      goal_rate: sessions === 0 ? null : converted / sessions,
      median_duration_ms: await medianDurationMs(db, rollout, version, sessions),
      failures: count(row.failures),
    };
  };
  return [await figures(rollout.base_version, 100 - rollout.share), await figures(rollout.candidate_version, rollout.share)];
}

/** The median of the version's durations (the reports' `duration_s`, as the dashboard's average reads them), from the one or two middle rows. */
async function medianDurationMs(db: Kysely<Database>, rollout: RolloutRow, version: number, sessions: number): Promise<number | null> {
  if (sessions === 0) return null;
  const { rows } = await sql<{ duration_s: number }>`
    select r.duration_s from ${countedSessions(rollout)} where c.version = ${version}
    order by r.duration_s limit ${sessions % 2 === 1 ? 1 : 2} offset ${Math.floor((sessions - 1) / 2)}`.execute(db);
  const values = rows.map((row) => Number(row.duration_s));
  return (values.reduce((sum, value) => sum + value, 0) / values.length) * 1000;
}

interface BlockOfVersion {
  id: string;
  type: string;
  label?: string;
}

/** The blocks of each version, in their documents' order: drop-off lists every one, those no session reached with zeros. */
async function blocksOf(db: Kysely<Database>, rollout: RolloutRow): Promise<Map<number, BlockOfVersion[]>> {
  const rows = await db
    .selectFrom('visual_plan_versions')
    .select(['version', 'document'])
    .where('plan_id', '=', rollout.plan_id)
    .where('version', 'in', [rollout.base_version, rollout.candidate_version])
    .execute();
  return new Map(rows.map((row) => [row.version, ((JSON.parse(row.document) as { nodes?: BlockOfVersion[] }).nodes ?? []).map(({ id, type, label }) => ({ id, type, ...(label && { label }) }))]));
}

/**
 * Per version and block of the plan (not of plans it calls, nor of the plan that called it), as
 * the heat map counts: entries into it, and sessions that ended in it.
 */
async function dropOffCounts(db: Kysely<Database>, dialect: DialectName, rollout: RolloutRow): Promise<Map<number, Map<string, { entered: number; ended: number }>>> {
  const nodes = jsonElements(dialect, 'r.nodes');
  // `jsonElements` gives fixed SQL text (no request value in it); the values travel as parameters.
  const { rows } = await sql<{ version: number; node_id: string; entered: number | string; ended: number | string }>`
    select version, node_id, sum(entered) as entered, sum(ended) as ended from (
      select c.version as version, ${sql.raw(nodes.text('node_id'))} as node_id, 1 as entered, 0 as ended
      from ${countedSessions(rollout)} ${sql.raw(nodes.from)} where ${sql.raw(nodes.number('plan_id'))} = ${rollout.plan_id}
      union all
      select c.version, r.last_node_id, 0, 1 from ${countedSessions(rollout)}
      where r.last_node_plan_id = ${rollout.plan_id} and r.last_node_id is not null
    ) x group by version, node_id`.execute(db);
  const counts = new Map<number, Map<string, { entered: number; ended: number }>>();
  for (const row of rows) {
    const version = Number(row.version);
    let blocks = counts.get(version);
    if (!blocks) counts.set(version, (blocks = new Map()));
    blocks.set(row.node_id, { entered: Number(row.entered), ended: Number(row.ended) });
  }
  return counts;
}

/** A block as a person reads it: the name given to it, else its type's name in `locale`. */
const blockName = (block: BlockOfVersion, locale: Locale): string => block.label ?? blockDefinition(block.type)?.texts[locale].name ?? block.type;

/** The rollout's results: both versions side by side and their goal rates compared. */
export async function rolloutResults(
  db: Kysely<Database>,
  dialect: DialectName,
  rollout: RolloutRow,
  locale: Locale,
): Promise<Omit<RolloutResults, 'rollout'>> {
  const [[base, candidate], blocks, counts] = await Promise.all([versionFigures(db, rollout), blocksOf(db, rollout), dropOffCounts(db, dialect, rollout)]);
  const withDropOff = (figures: VersionFigures): VersionResult => {
    const counted = counts.get(figures.version) ?? new Map<string, { entered: number; ended: number }>();
    return {
      ...figures,
      drop_off: (blocks.get(figures.version) ?? []).map((block) => ({
        node_id: block.id,
        name: blockName(block, locale),
        type: block.type,
        entered: counted.get(block.id)?.entered ?? 0,
        ended: counted.get(block.id)?.ended ?? 0,
      })),
    };
  };
  return {
    versions: [withDropOff(base), withDropOff(candidate)],
    comparison: compareGoalRates(base, candidate),
  };
}
