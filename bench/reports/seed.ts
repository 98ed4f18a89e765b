/**
 * Call reports in bulk for the reports benches (bench/reports/): made by the database itself in a
 * few statements (generate_series on PostgreSQL, a recursive CTE on SQLite), then the statistics'
 * rollups made from them as the migration does (`rebuildStatsRollups`).
 */
import { type Kysely, sql } from 'kysely';
import type { AppContext } from '../../apps/server/src/context.ts';
import type { Database } from '../../apps/server/src/db/schema.ts';
import { rebuildStatsRollups } from '../../apps/server/src/db/stats-rollups.ts';

/** The first report's start; each next one starts `spacingS` later, so the reports span SPAN_DAYS. */
export const SEED_START = '2025-11-20T00:00:00.000Z';
export const SPAN_DAYS = 360;
/** Plans of the main tenant; the other tenant has OTHER_PLANS. Blocks a session may end in, per plan. */
const PLANS = 20;
const OTHER_PLANS = 2;
const END_BLOCKS = 15;

export interface SeededReports {
  /** The tenant nine reports in ten belong to, and its plans' ids. */
  tenantId: number;
  planIds: number[];
  otherTenantId: number;
  count: number;
  /** Seconds between two reports' starts. */
  spacingS: number;
  /** Milliseconds the reports took, and the rollups after them. */
  reportsMs: number;
  rollupsMs: number;
}

/** Which of the reports seedReports makes are the other tenant's, and test sessions: the benches check their answers by these. */
export const isOtherTenant = (i: number): boolean => Math.floor(i / PLANS) % 10 === 0;
export const isTestReport = (i: number): boolean => i % 100 === 99;

async function addPlans(db: Kysely<Database>, tenantId: number, count: number, now: string): Promise<number[]> {
  const rows = await db
    .insertInto('visual_plans')
    .values(
      Array.from({ length: count }, (_, index) => ({
        tenant_id: tenantId,
        created_time: now,
        updated_time: now,
        name: `Bench plan ${tenantId}-${index + 1}`,
        description: '',
        document: JSON.stringify({ format_version: 1, settings: {}, nodes: [], edges: [] }),
        version: 1,
        published_version: 1,
        updated_by: null,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/**
 * `count` reports (the i-th starting `spacingS` × i after SEED_START): one in ten in a second
 * tenant (`isOtherTenant`), one in a hundred a test session (`isTestReport`), a quarter chats;
 * each enters start, a menu (a key pressed there) and one of END_BLOCKS blocks it ends in, with
 * dispositions of every kind.
 */
export async function seedReports(ctx: AppContext, count: number, log: (line: string) => void = () => {}): Promise<SeededReports> {
  const { db, dialect } = ctx;
  const now = new Date().toISOString();
  const [main, other] = await db
    .insertInto('tenants')
    .values([
      { created_time: now, name: `Bench reports ${now}`, integrations: null },
      { created_time: now, name: `Bench reports, other ${now}`, integrations: null },
    ])
    .returning('id')
    .execute();
  const tenantId = main!.id;
  const otherTenantId = other!.id;
  const planIds = await addPlans(db, tenantId, PLANS, now);
  const otherPlanIds = await addPlans(db, otherTenantId, OTHER_PLANS, now);
  // Plans are made in a row, so their ids are consecutive: reports pick one by arithmetic.
  if (planIds.at(-1)! - planIds[0]! !== PLANS - 1 || otherPlanIds.at(-1)! - otherPlanIds[0]! !== OTHER_PLANS - 1) throw new Error('plan ids are not consecutive');
  const spacingS = Math.max(1, Math.floor((SPAN_DAYS * 86_400) / count));
  const startSeconds = Date.parse(SEED_START) / 1000;
  const time =
    dialect === 'postgres'
      ? `to_char(to_timestamp(${startSeconds} + i * ${spacingS}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%S.000Z', ${startSeconds} + i * ${spacingS}, 'unixepoch')`;
  const node = (id: string, type: string, exit: string) =>
    `'{"plan_id":' || cast(plan_id as text) || ',"node_id":"${id}","type":"${type}","at":"' || ts || '","exit":${exit}}'`;
  // Per plan (i % PLANS), i / PLANS walks every block, channel and tenant.
  const ending = `'n' || cast((i / ${PLANS}) % ${END_BLOCKS} as text)`;
  const select =
    `select tenant_id, 'bench-' || cast(i as text), plan_id, 'Bench plan ' || cast(plan_id as text), 1, ` +
    `case when (i / ${PLANS}) % 4 = 0 then 'chat' else 'voice' end, case when (i / ${PLANS}) % 4 = 0 then 'webchat' else 'twilio' end, 'inbound', ` +
    `'+55119' || cast(10000000 + i % 1000000 as text), '+551130000000', null, null, plan_id, ${ending}, 'play_message', ` +
    `'[' || ${node('start', 'start', '"next"')} || ',' || ${node('menu', 'voice_menu', `"' || cast(1 + i % 3 as text) || '"`)} || ',' || ` +
    `'{"plan_id":' || cast(plan_id as text) || ',"node_id":"' || ${ending} || '","type":"play_message","at":"' || ts || '","exit":null}' || ']', ` +
    `'[{"plan_id":' || cast(plan_id as text) || ',"node_id":"menu","digits":"' || cast(1 + i % 3 as text) || '","at":"' || ts || '"}]', ` +
    `case i % 7 when 2 then 'caller_hangup' when 3 then 'engine_error' else 'normal_clearing' end, ` +
    `case i % 7 when 0 then 'routed' when 1 then 'routed' when 2 then 'abandoned' when 3 then 'failed' else 'retained' end, ` +
    `case when i % 7 < 2 then 'answer' else null end, null, null, '{}', case when i % 100 = 99 then 1 else 0 end, ` +
    `ts, ts, 30 + i % 300, ts, ts`;
  const inOther = `(i / ${PLANS}) % 10 = 0`;
  const source = (from: number, to: number) =>
    `select i, ts, case when ${inOther} then ${otherTenantId} else ${tenantId} end as tenant_id, ` +
    `case when ${inOther} then ${otherPlanIds[0]} + i % ${OTHER_PLANS} else ${planIds[0]} + i % ${PLANS} end as plan_id ` +
    (dialect === 'postgres'
      ? `from (select i, ${time} as ts from generate_series(${from}, ${to}) as g(i)) g`
      : `from (with recursive seq(i) as (select ${from} union all select i + 1 from seq where i < ${to}) select i, ${time} as ts from seq) g`);
  const columns =
    'tenant_id, session_id, plan_id, plan_name, plan_version, channel, provider, direction, caller, called, source_ip, protocol, ' +
    'last_node_plan_id, last_node_id, last_node_type, nodes, pressed_digits, hangup_cause, disposition, dial_status, failure, recording, ' +
    'variables, is_test, start_time, end_time, duration_s, created_time, updated_time';
  const started = performance.now();
  const batch = 100_000;
  for (let from = 1; from <= count; from += batch) {
    const to = Math.min(count, from + batch - 1);
    await sql.raw(`insert into call_reports (${columns}) ${select} from (${source(from, to)}) s`).execute(db);
    log(`  reports ${to.toLocaleString('en')} of ${count.toLocaleString('en')}`);
  }
  await sql.raw('analyze').execute(db);
  const reportsMs = performance.now() - started;
  const rollupsStarted = performance.now();
  await rebuildStatsRollups(db, dialect);
  await sql.raw('analyze').execute(db);
  return { tenantId, planIds, otherTenantId, count, spacingS, reportsMs, rollupsMs: performance.now() - rollupsStarted };
}
