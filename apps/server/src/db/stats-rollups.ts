/**
 * The statistics' rollups (docs/api.md, "Statistics"): counters per tenant, plan the session
 * started in and UTC hour of its start (and per tenant and hour alone, for the periods of every plan), raised in the transaction that first stores a session's
 * report (sessions.repository.ts `saveReport`, the one report writer). The statistics API sums
 * them, so its cost follows the hours asked for, not the reports kept. Test sessions are left out.
 */
import type { CallReport } from '@voxplan/engine';
import { CompiledQuery, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { DialectName } from './database.ts';
import { executeCompiled } from './prepared.ts';
import type { Database } from './schema.ts';

/** The dispositions counted in columns of their own; `expired` is the retention job's, `missed` a chat nobody took. */
export const ROLLED_UP_DISPOSITIONS = ['routed', 'retained', 'abandoned', 'failed', 'expired', 'missed'] as const;

export const HOUR_MS = 3_600_000;

/** The hour bucket of an instant, as `stats_*.hour` holds it: hours since 1970-01-01T00:00Z. */
export const hourOf = (iso: string): number => Math.floor(Date.parse(iso) / HOUR_MS);

/** The SQL that makes the hour bucket of a report's `start_time` (an ISO instant), as `hourOf` does. */
const hourOfStart = (dialect: DialectName): string =>
  dialect === 'postgres' ? `floor(extract(epoch from r.start_time::timestamptz) / 3600)::integer` : `cast(strftime('%s', r.start_time) as integer) / 3600`;

interface Statement {
  /** With `?` for each parameter; PostgreSQL's `$n` are put in when the statements are joined. */
  text: string;
  parameters: unknown[];
}

const SESSION_COLUMNS = ['sessions', 'voice', 'chat', ...ROLLED_UP_DISPOSITIONS, 'duration_s'] as const;
const raise = (table: string, columns: readonly string[]) => columns.map((column) => `"${column}" = "${table}"."${column}" + excluded."${column}"`).join(', ');

const sessionsUpsert = (table: 'stats_tenants' | 'stats_sessions', keys: readonly string[]) =>
  `insert into "${table}" (${[...keys, ...SESSION_COLUMNS].map((column) => `"${column}"`).join(', ')}) ` +
  `values (${Array(keys.length + SESSION_COLUMNS.length).fill('?').join(', ')}) ` +
  `on conflict (${keys.map((key) => `"${key}"`).join(', ')}) do update set ${raise(table, SESSION_COLUMNS)}`;
const TENANT_KEYS = ['tenant_id', 'hour'] as const;
const SESSION_KEYS = ['tenant_id', 'hour', 'plan_id'] as const;
const TENANTS_UPSERT = sessionsUpsert('stats_tenants', TENANT_KEYS);
const SESSIONS_UPSERT = sessionsUpsert('stats_sessions', SESSION_KEYS);

/** The text of a multi-row upsert, one per row count: a session's blocks and menus vary in number. */
function multiRowUpsert(table: 'stats_nodes' | 'stats_digits' | 'stats_nodes_days' | 'stats_digits_days', keys: readonly string[], counters: readonly string[]) {
  const texts = new Map<number, string>();
  const row = `(${Array(keys.length + counters.length).fill('?').join(', ')})`;
  return (rows: number): string => {
    let text = texts.get(rows);
    if (text === undefined) {
      const columns = [...keys, ...counters].map((column) => `"${column}"`).join(', ');
      text =
        `insert into "${table}" (${columns}) values ${Array(rows).fill(row).join(', ')} ` +
        `on conflict (${keys.map((key) => `"${key}"`).join(', ')}) do update set ${raise(table, counters)}`;
      // Bounded by the largest plan's blocks; kept all the same only up to a few hundred shapes.
      if (texts.size < 256) texts.set(rows, text);
    }
    return text;
  };
}

const nodeKeys = (bucket: 'hour' | 'day') => ['plan_id', bucket, 'tenant_id', 'node_plan_id', 'node_id'];
const NODE_COUNTERS = ['entered', 'ended'] as const;
const DIGIT_COUNTERS = ['count'] as const;
/** Each table's upsert text for so many rows. */
const UPSERTS: Record<RollupTable, (rows: number) => string> = {
  stats_tenants: () => TENANTS_UPSERT,
  stats_sessions: () => SESSIONS_UPSERT,
  stats_nodes: multiRowUpsert('stats_nodes', nodeKeys('hour'), NODE_COUNTERS),
  stats_digits: multiRowUpsert('stats_digits', [...nodeKeys('hour'), 'digits'], DIGIT_COUNTERS),
  stats_nodes_days: multiRowUpsert('stats_nodes_days', nodeKeys('day'), NODE_COUNTERS),
  stats_digits_days: multiRowUpsert('stats_digits_days', [...nodeKeys('day'), 'digits'], DIGIT_COUNTERS),
};

/** Rows a statement carries at most: well under either database's limit of bound values. */
const MAX_ROWS = 500;

type RollupTable = 'stats_tenants' | 'stats_sessions' | 'stats_nodes' | 'stats_digits' | 'stats_nodes_days' | 'stats_digits_days';

/** One table's rows of a report's rollups: the columns that key a row, the counters it raises, the rows (keys then counters) in key order. */
interface RollupRows {
  table: RollupTable;
  keys: readonly string[];
  counters: readonly string[];
  rows: unknown[][];
}

/**
 * What one report adds to each rollup table. Rows go in key order, so that two instances ending
 * sessions of one plan at once take the rows' locks in the same order (no deadlock).
 */
function rollupRows(report: CallReport): RollupRows[] {
  const hour = hourOf(report.started_at);
  const disposition = report.disposition as string | null;
  const counters = [
    1,
    report.channel === 'voice' ? 1 : 0,
    report.channel === 'chat' ? 1 : 0,
    ...ROLLED_UP_DISPOSITIONS.map((name) => (disposition === name ? 1 : 0)),
    report.duration_s ?? 0,
  ];
  const key = (planId: number, nodeId: string) => `${String(planId).padStart(10, '0')}\u0000${nodeId}`;
  const nodes = new Map<string, { plan_id: number; node_id: string; entered: number; ended: number }>();
  const nodeOf = (planId: number, nodeId: string) => {
    const id = key(planId, nodeId);
    let node = nodes.get(id);
    if (!node) nodes.set(id, (node = { plan_id: planId, node_id: nodeId, entered: 0, ended: 0 }));
    return node;
  };
  for (const entry of report.nodes) nodeOf(entry.plan_id, entry.node_id).entered++;
  if (report.last_node) nodeOf(report.last_node.plan_id, report.last_node.node_id).ended++;
  const digits = new Map<string, { plan_id: number; node_id: string; digits: string; count: number }>();
  for (const entry of report.pressed_digits) {
    const id = `${key(entry.plan_id, entry.node_id)}\u0000${entry.digits}`;
    const found = digits.get(id);
    if (found) found.count++;
    else digits.set(id, { plan_id: entry.plan_id, node_id: entry.node_id, digits: entry.digits, count: 1 });
  }
  const sortedNodes = [...nodes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, node]) => [node.plan_id, node.node_id, node.entered, node.ended]);
  const sortedDigits = [...digits.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, entry]) => [entry.plan_id, entry.node_id, entry.digits, entry.count]);
  const inHour = (rows: unknown[][]) => rows.map((row) => [report.plan_id, hour, report.tenant_id, ...row]);
  const inDay = (rows: unknown[][]) => rows.map((row) => [report.plan_id, Math.floor(hour / 24), report.tenant_id, ...row]);
  const tables: RollupRows[] = [
    { table: 'stats_tenants', keys: TENANT_KEYS, counters: SESSION_COLUMNS, rows: [[report.tenant_id, hour, ...counters]] },
    { table: 'stats_sessions', keys: SESSION_KEYS, counters: SESSION_COLUMNS, rows: [[report.tenant_id, hour, report.plan_id, ...counters]] },
    { table: 'stats_nodes', keys: nodeKeys('hour'), counters: NODE_COUNTERS, rows: inHour(sortedNodes) },
    { table: 'stats_nodes_days', keys: nodeKeys('day'), counters: NODE_COUNTERS, rows: inDay(sortedNodes) },
    { table: 'stats_digits', keys: [...nodeKeys('hour'), 'digits'], counters: DIGIT_COUNTERS, rows: inHour(sortedDigits) },
    { table: 'stats_digits_days', keys: [...nodeKeys('day'), 'digits'], counters: DIGIT_COUNTERS, rows: inDay(sortedDigits) },
  ];
  return tables.filter((table) => table.rows.length > 0);
}

/** The statements that add one report to the rollups. */
function rollupStatements(report: CallReport): Statement[] {
  const statements: Statement[] = [];
  for (const { table, rows } of rollupRows(report)) {
    for (let start = 0; start < rows.length; start += MAX_ROWS) {
      const end = Math.min(rows.length, start + MAX_ROWS);
      // A loop rather than slice().flat(): V8's flat() was most of this function's time, 2 % of a Twilio call (issue 40).
      const parameters: unknown[] = [];
      for (let index = start; index < end; index++) for (const value of rows[index]!) parameters.push(value);
      statements.push({ text: UPSERTS[table](end - start), parameters });
    }
  }
  return statements;
}

/**
 * The rows as a JSON array of objects keyed by `columns`, written as text: an object per row made
 * only to be stringified was 4 % of a call's CPU on PostgreSQL (issue 40), for 44 rows a call.
 */
function recordsJson(columns: readonly string[], rows: readonly unknown[][]): string {
  const keys = columns.map((column, index) => `${index === 0 ? '{' : ','}${JSON.stringify(column)}:`);
  let text = '[';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (r > 0) text += ',';
    for (let index = 0; index < keys.length; index++) {
      const value = row[index];
      // Most values are counters and ids: a finite number's JSON is its String(), for half of JSON.stringify's time.
      text += keys[index]! + (typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value ?? null));
    }
    text += '}';
  }
  return `${text}]`;
}

/**
 * PostgreSQL: the rollups of a report as the data-modifying CTEs of a statement that also stores the
 * report (sessions.repository.ts `storeEnd`), raised only if `guard`, a CTE of that statement, has a
 * row. Each table's rows travel as one JSON parameter that the table's own row type reads
 * (`json_populate_recordset`): a value inside a sub-select has no column to take its type from.
 */
export function rollupCtes(report: CallReport, guard: string, parameter: (value: unknown) => string): string[] {
  return rollupRows(report).map(({ table, keys, counters, rows }) => {
    const columns = [...keys, ...counters];
    const list = columns.map((column) => `"${column}"`).join(', ');
    return (
      `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", ${parameter(recordsJson(columns, rows))}::json) ` +
      `where exists (select 1 from "${guard}") on conflict (${keys.map((column) => `"${column}"`).join(', ')}) do update set ${raise(table, counters)}`
    );
  });
}

/** `?` to `$1`, `$2`, ... from `first`: none of the statements has a `?` of its own. */
function numbered(text: string, first: number): string {
  let index = first;
  return text.replace(/\?/g, () => `$${index++}`);
}

const isPostgres = (db: Kysely<Database>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Adds a stored report to the rollups, in the caller's transaction. Few statements per session
 * end (the channels bench counts every one): on PostgreSQL a single one (the upserts as
 * data-modifying CTEs, one round trip); on SQLite, in process, one per table written.
 */
export async function rollUpReport(trx: Kysely<Database>, report: CallReport): Promise<void> {
  const statements = rollupStatements(report);
  if (!isPostgres(trx)) {
    for (const statement of statements) await executeCompiled(trx, CompiledQuery.raw(statement.text, statement.parameters));
    return;
  }
  const parameters: unknown[] = [];
  const texts = statements.map((statement) => {
    const text = numbered(statement.text, parameters.length + 1);
    parameters.push(...statement.parameters);
    return text;
  });
  const last = texts.pop()!;
  const text = texts.length === 0 ? last : `with ${texts.map((part, index) => `s${index} as (${part})`).join(', ')} ${last}`;
  await trx.executeQuery(CompiledQuery.raw(text, parameters));
}

/** What a report's JSON columns hold per element, read in SQL by each dialect. */
export function jsonElements(dialect: DialectName, column: string): { from: string; number: (field: string) => string; text: (field: string) => string } {
  return dialect === 'postgres'
    ? {
        from: `cross join lateral json_array_elements(${column}::json) as j(value)`,
        number: (field) => `(j.value->>'${field}')::integer`,
        text: (field) => `j.value->>'${field}'`,
      }
    : {
        from: `cross join json_each(${column}) as j`,
        number: (field) => `json_extract(j.value, '$.${field}')`,
        text: (field) => `json_extract(j.value, '$.${field}')`,
      };
}

/**
 * Makes the rollups again from the stored reports: the migration that adds them, and the
 * benchmark after it seeds reports in bulk. Set-based (one statement per table). On PostgreSQL
 * reports are held from being written meanwhile (a session that ends waits for it), so none is
 * counted twice or missed.
 */
export async function rebuildStatsRollups(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  if (!db.isTransaction) {
    await db.transaction().execute((trx) => rebuildStatsRollups(trx, dialect));
    return;
  }
  if (dialect === 'postgres') await sql`lock table call_reports in share mode`.execute(db);
  for (const table of ['stats_tenants', 'stats_sessions', 'stats_nodes', 'stats_digits', 'stats_nodes_days', 'stats_digits_days'] as const) await db.deleteFrom(table).execute();
  const hour = hourOfStart(dialect);
  const counts = ROLLED_UP_DISPOSITIONS.map((name) => `sum(case when r.disposition = '${name}' then 1 else 0 end)`);
  await sql
    .raw(
      `insert into stats_sessions (tenant_id, hour, plan_id, ${SESSION_COLUMNS.join(', ')}) ` +
        `select r.tenant_id, ${hour}, r.plan_id, count(*), sum(case when r.channel = 'voice' then 1 else 0 end), ` +
        `sum(case when r.channel = 'chat' then 1 else 0 end), ${counts.join(', ')}, sum(r.duration_s) ` +
        `from call_reports r where r.is_test = 0 group by 1, 2, 3`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into stats_tenants (tenant_id, hour, ${SESSION_COLUMNS.join(', ')}) ` +
        `select tenant_id, hour, ${SESSION_COLUMNS.map((column) => `sum(${column})`).join(', ')} from stats_sessions group by 1, 2`,
    )
    .execute(db);
  const nodes = jsonElements(dialect, 'r.nodes');
  await sql
    .raw(
      `insert into stats_nodes (plan_id, hour, tenant_id, node_plan_id, node_id, entered, ended) ` +
        `select plan_id, hour, tenant_id, node_plan_id, node_id, sum(entered), sum(ended) from (` +
        `select r.plan_id, ${hour} as hour, r.tenant_id, ${nodes.number('plan_id')} as node_plan_id, ${nodes.text('node_id')} as node_id, 1 as entered, 0 as ended ` +
        `from call_reports r ${nodes.from} where r.is_test = 0 ` +
        `union all select r.plan_id, ${hour}, r.tenant_id, r.last_node_plan_id, r.last_node_id, 0, 1 ` +
        `from call_reports r where r.is_test = 0 and r.last_node_id is not null` +
        `) x group by 1, 2, 3, 4, 5`,
    )
    .execute(db);
  const digits = jsonElements(dialect, 'r.pressed_digits');
  await sql
    .raw(
      `insert into stats_digits (plan_id, hour, tenant_id, node_plan_id, node_id, digits, count) ` +
        `select r.plan_id, ${hour}, r.tenant_id, ${digits.number('plan_id')}, ${digits.text('node_id')}, ${digits.text('digits')}, count(*) ` +
        `from call_reports r ${digits.from} where r.is_test = 0 group by 1, 2, 3, 4, 5, 6`,
    )
    .execute(db);
  // Integer division: an hour's UTC day, as rollUpReport takes it.
  await sql
    .raw(
      `insert into stats_nodes_days (plan_id, day, tenant_id, node_plan_id, node_id, entered, ended) ` +
        `select plan_id, hour / 24, tenant_id, node_plan_id, node_id, sum(entered), sum(ended) from stats_nodes group by 1, 2, 3, 4, 5`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into stats_digits_days (plan_id, day, tenant_id, node_plan_id, node_id, digits, count) ` +
        `select plan_id, hour / 24, tenant_id, node_plan_id, node_id, digits, sum(count) from stats_digits group by 1, 2, 3, 4, 5, 6`,
    )
    .execute(db);
}
