/**
 * API throughput/latency bench: `npm run bench:api` (see bench/README.md).
 *
 * Servers run in child processes (bench/api/server.ts) so that autocannon, in this process, does
 * not share the server's event loop; with taskset available each side is pinned to its own core.
 * Environment:
 *   BENCH_SECONDS=10          measured seconds per scenario (after BENCH_WARMUP_SECONDS=2 of warm-up)
 *   BENCH_CONNECTIONS=50      concurrent connections
 *   BENCH_ROWS=100000         destinations seeded in the tenant
 *   BENCH_INDEX=with          without | with | both: run the destinations scenarios with the
 *                             migrated schema and/or with the name index dropped, for comparison
 *   BENCH_DIALECT=both        sqlite | postgres | both (PostgreSQL: a throwaway server of its own;
 *                             with `both` and no PostgreSQL installed, SQLite alone and a note)
 *   BENCH_PIN=1               0 to let the OS schedule both processes freely
 *   BENCH_PROFILE=0           1: afterwards, CPU-profile the server under one scenario's load
 *   BENCH_SCENARIOS=users,list,count,id,rlist,rcount,create,update  the scenarios measured (all by default)
 *   BENCH_PROFILE_SCENARIO=users  the scenario BENCH_PROFILE profiles (one of the keys above)
 *   BENCH_PROFILE_OUT=path    keep that .cpuprofile (otherwise it goes with the temp dir); with two
 *                             dialects the dialect goes before the extension
 *   BENCH_STRICT=0            1: exit 3 when a target FAILs (non-2xx responses always exit 1)
 *   BENCH_FLOOR=1             0: skip the floor (floor.ts) of the uncached scenarios on SQLite
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../../apps/server/test/postgres-server.ts';
import { envNumber } from '../lib/env.ts';
import { checkedJson } from '../lib/http-json.ts';
import { canPin, cpuCount, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { formatSummary, summarize, type CpuProfile } from './cpu-profile.ts';
import { BENCH_ADMIN, type ExplainResult, isExplainResult } from './protocol.ts';

// ---------------------------------------------------------------------------------------------
// Settings

type Dialect = 'sqlite' | 'postgres';

/**
 * The scenarios, each with its targets. The first three repeat one request, which the read cache
 * answers (what the console repeats); the others ask something new every time: a random record,
 * a random range, a write.
 */
const scenarioKeys = ['users', 'list', 'count', 'id', 'rlist', 'rcount', 'create', 'update'] as const;
type ScenarioKey = (typeof scenarioKeys)[number];
/** The scenarios no cache answers: the ones the floor is measured on. */
const uncached: readonly ScenarioKey[] = ['id', 'rlist', 'rcount', 'create', 'update'];

const settings = {
  seconds: envNumber('BENCH_SECONDS', 10),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 2),
  connections: envNumber('BENCH_CONNECTIONS', 50),
  rows: envNumber('BENCH_ROWS', 100_000),
  index: (process.env.BENCH_INDEX ?? 'with') as 'without' | 'with' | 'both',
  dialect: (process.env.BENCH_DIALECT ?? 'both') as Dialect | 'both',
  pin: process.env.BENCH_PIN !== '0',
  profile: process.env.BENCH_PROFILE === '1',
  profileOut: process.env.BENCH_PROFILE_OUT,
  profileScenario: (process.env.BENCH_PROFILE_SCENARIO ?? 'users') as ScenarioKey,
  scenarios: (process.env.BENCH_SCENARIOS ?? scenarioKeys.join(',')).split(',').map((key) => key.trim()) as ScenarioKey[],
  strict: process.env.BENCH_STRICT === '1',
  floor: process.env.BENCH_FLOOR !== '0',
};
if (!['without', 'with', 'both'].includes(settings.index)) throw new Error('BENCH_INDEX must be without, with or both');
if (!['sqlite', 'postgres', 'both'].includes(settings.dialect)) throw new Error('BENCH_DIALECT must be sqlite, postgres or both');
if (!scenarioKeys.includes(settings.profileScenario)) throw new Error(`BENCH_PROFILE_SCENARIO must be one of ${scenarioKeys.join(', ')}`);
const unknownScenario = settings.scenarios.find((key) => !scenarioKeys.includes(key));
if (unknownScenario !== undefined) throw new Error(`BENCH_SCENARIOS: unknown scenario '${unknownScenario}'; known: ${scenarioKeys.join(', ')}`);
if (settings.rows < 1000 || settings.rows > 1_000_000) throw new Error('BENCH_ROWS must be between 1000 and 1000000');

/** The index the destinations list and count need (migration 0002-sort-indexes). */
const NAME_INDEX = { name: 'ix_destinations__tenant_id__name', table: 'destinations', columns: ['tenant_id', 'name'] };

// Names are 'dest 000000'..; this range holds exactly a tenth of the rows, from the middle.
const rangeLow = Math.floor(settings.rows / 2);
const rangeHigh = rangeLow + Math.floor(settings.rows / 10) - 1;
const destName = (n: number) => `dest ${String(n).padStart(6, '0')}`;
const nameRange = { name: { between: [destName(rangeLow), destName(rangeHigh)] } };
const listFilter = { where: nameRange, order: ['name ASC'], limit: 25 };
const expectedCount = rangeHigh - rangeLow + 1;
/** The random ranges of the uncached list and count: this many names, from anywhere. */
const RANDOM_RANGE = 500;

const here = path.dirname(fileURLToPath(import.meta.url));
const serverScript = path.join(here, 'server.ts');
const pinning = settings.pin && canPin();
const serverCpu = pinning ? SERVER_CPU : undefined;

// ---------------------------------------------------------------------------------------------
// Load

interface Measurement {
  name: string;
  rps: number;
  /** Standard deviation of the per-second request counts, as a share of their mean. */
  rpsCv: number;
  p50: number;
  p95: number;
  p99: number;
  /** autocannon's own p97.5, from its whole-millisecond histogram, as a cross-check. */
  acP97_5: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  serverCpu: number | undefined;
  loadgenCpu: number;
}

function percentile(sortedValues: Float64Array, p: number): number {
  if (sortedValues.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedValues.length) - 1;
  return sortedValues[Math.min(sortedValues.length - 1, Math.max(0, rank))]!;
}

/** What a scenario sends: one fixed request, or with `next` a new path (and body) for every request. */
interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  next?: () => { path: string; body?: string };
}

function runAutocannon(
  baseUrl: string,
  spec: RequestSpec,
  seconds: number,
  onResponse?: (statusCode: number, responseTime: number) => void,
): Promise<autocannon.Result> {
  const { next } = spec;
  // autocannon builds the bytes of a request with setupRequest anew each time; a fixed one once.
  const requests: autocannon.Request[] | undefined = next && [{ method: spec.method, setupRequest: (request) => ({ ...request, ...next() }) }];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${baseUrl}${spec.path}`,
        method: spec.method,
        headers: spec.headers,
        ...(requests && { requests }),
        connections: settings.connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    if (onResponse) instance.on('response', (_client, statusCode, _bytes, responseTime) => onResponse(statusCode, responseTime));
  });
}

function statusCodesOf(result: autocannon.Result): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) codes[code] = stat.count ?? 0;
  return codes;
}

const failures: string[] = [];

async function measure(name: string, server: ServerChild, spec: RequestSpec): Promise<Measurement> {
  process.stderr.write(`  ${name}: warm-up ${settings.warmupSeconds}s, measure ${settings.seconds}s ...`);
  if (settings.warmupSeconds > 0) {
    const warm = await runAutocannon(server.url, spec, settings.warmupSeconds);
    if (warm.non2xx > 0 || warm.errors > 0) {
      failures.push(`${name}: warm-up got ${warm.non2xx} non-2xx and ${warm.errors} errors ${JSON.stringify(statusCodesOf(warm))}`);
    }
  }
  const latencies: number[] = [];
  const serverCpuBefore = server.cpuSeconds();
  const loadgenBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  const result = await runAutocannon(server.url, spec, settings.seconds, (_status, ms) => latencies.push(ms));
  const wallSeconds = Number(process.hrtime.bigint() - wallBefore) / 1e9;
  const loadgen = process.cpuUsage(loadgenBefore);
  const serverCpuAfter = server.cpuSeconds();
  const sortedLatencies = Float64Array.from(latencies).sort();
  const measurement: Measurement = {
    name,
    rps: result.requests.total / result.duration,
    rpsCv: result.requests.mean > 0 ? result.requests.stddev / result.requests.mean : Number.NaN,
    p50: percentile(sortedLatencies, 50),
    p95: percentile(sortedLatencies, 95),
    p99: percentile(sortedLatencies, 99),
    acP97_5: result.latency.p97_5,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: statusCodesOf(result),
    serverCpu: serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / wallSeconds : undefined,
    loadgenCpu: (loadgen.user + loadgen.system) / 1e6 / wallSeconds,
  };
  process.stderr.write(` ${measurement.rps.toFixed(0)} req/s\n`);
  if (measurement.non2xx > 0 || measurement.errors > 0) {
    failures.push(
      `${name}: ${measurement.non2xx} non-2xx responses, ${measurement.errors} errors (${measurement.timeouts} timeouts), status codes ${JSON.stringify(measurement.statusCodes)}`,
    );
  }
  return measurement;
}

// ---------------------------------------------------------------------------------------------
// Output

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const pct = (value: number | undefined) => (value === undefined ? 'n/a' : `${Math.round(value * 100)}%`);

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) => `| ${row.map((cell, col) => cell.padEnd(widths[col]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

interface LatencyTarget {
  percentile: 95 | 99;
  /** p95 must stay under it; p99 at most it. */
  ms: number;
}

interface Verdict {
  measurement: Measurement;
  ratioTarget: number | undefined;
  latency: LatencyTarget;
}

let targetFailures = 0;

const latencyOk = (m: Measurement, target: LatencyTarget) =>
  target.percentile === 95 ? m.p95 < target.ms : m.p99 <= target.ms;
const latencyLabel = (target: LatencyTarget) => `p${target.percentile} ${target.percentile === 95 ? '<' : '<='} ${target.ms}ms`;
const perCpu = (m: Measurement) => (m.serverCpu !== undefined && m.serverCpu > 0 ? m.rps / m.serverCpu : Number.NaN);
const bestOf = (hellos: Measurement[]) => hellos.reduce((best, m) => (m.rps > best.rps ? m : best));

/** The hello-world runs bracket the others; the best one is the baseline (the lower ratio). */
function report(title: string, hellos: Measurement[], verdicts: Verdict[]): string {
  const baseline = bestOf(hellos);
  const header = [
    'scenario', 'req/s', '±/s', 'p50 ms', 'p95 ms', 'p99 ms', 'ac p97.5', 'non-2xx', 'ratio', 'ratio target', 'latency target',
    'srv CPU', 'loadgen CPU', 'µs CPU/req', 'req/CPU-s', 'CPU ratio',
  ];
  const rows = [header];
  const helloRows: Verdict[] = hellos.map((measurement) => ({ measurement, ratioTarget: undefined, latency: { percentile: 95, ms: 10 } }));
  for (const { measurement: m, ratioTarget, latency } of [...helloRows, ...verdicts]) {
    const isHello = hellos.includes(m);
    const ratio = m.rps / baseline.rps;
    const ratioOk = ratioTarget === undefined || ratio >= ratioTarget;
    const timeOk = latencyOk(m, latency);
    if (!isHello && (!ratioOk || !timeOk)) targetFailures++;
    rows.push([
      m.name,
      fmt(m.rps, 0),
      Number.isFinite(m.rpsCv) ? `${Math.round(m.rpsCv * 100)}%` : 'n/a',
      fmt(m.p50),
      fmt(m.p95),
      fmt(m.p99),
      fmt(m.acP97_5, 0),
      String(m.non2xx + m.errors),
      fmt(ratio),
      ratioTarget !== undefined ? `>= ${ratioTarget} ${ratioOk ? 'PASS' : 'FAIL'}` : m === baseline ? '(baseline)' : '',
      isHello ? '' : `${latencyLabel(latency)} ${timeOk ? 'PASS' : 'FAIL'}`,
      pct(m.serverCpu),
      pct(m.loadgenCpu),
      fmt(1e6 / perCpu(m), 0),
      fmt(perCpu(m), 0),
      fmt(perCpu(m) / perCpu(baseline)),
    ]);
  }
  return `\n${title}\n${table(rows)}\n`;
}

/** SQLite's figures with PostgreSQL's beside them, scenario by scenario (schema as migrated). */
function sideBySide(hellos: Measurement[], runs: { dialect: Dialect; verdicts: Verdict[] }[]): string {
  const baseline = bestOf(hellos);
  const header = ['scenario', 'target'];
  for (const { dialect } of runs) header.push(`${dialect} req/s`, 'ratio', 'p99 ms', 'µs CPU/req');
  const rows = [header];
  for (const [index, first] of runs[0]!.verdicts.entries()) {
    const row = [first.measurement.name, `${first.ratioTarget !== undefined ? `>= ${first.ratioTarget}, ` : ''}${latencyLabel(first.latency)}`];
    for (const { verdicts } of runs) {
      const m = verdicts[index]!.measurement;
      row.push(fmt(m.rps, 0), fmt(m.rps / baseline.rps), fmt(m.p99), fmt(1e6 / perCpu(m), 0));
    }
    rows.push(row);
  }
  return `\nSide by side (hello-world baseline ${fmt(baseline.rps, 0)} req/s, ${fmt(1e6 / perCpu(baseline), 0)} µs CPU/req; ` +
    `on PostgreSQL the CPU is the Node server's alone, not the database's)\n${table(rows)}\n`;
}
/** The uncached scenarios' floor (floor.ts) beside the app on SQLite: a target over the floor's ratio is out of any design's reach here. */
function floorReport(hellos: Measurement[], floor: Verdict[], app: Verdict[]): string {
  const baseline = bestOf(hellos);
  const rows = [['scenario', 'targets', 'floor req/s', 'floor ratio', 'floor p99 ms', 'floor µs CPU/req', 'app ratio', 'app p99 ms', 'app µs CPU/req', 'app ÷ floor (CPU)', 'targets vs floor']];
  for (const { measurement: f, ratioTarget, latency } of floor) {
    const a = app.find((verdict) => verdict.measurement.name === f.name)?.measurement;
    const floorRatio = f.rps / baseline.rps;
    const beyond = [
      ...(ratioTarget !== undefined && floorRatio < ratioTarget ? ['ratio'] : []),
      ...(latencyOk(f, latency) ? [] : [`p${latency.percentile}`]),
    ];
    rows.push([
      f.name,
      `${ratioTarget !== undefined ? `>= ${ratioTarget}, ` : ''}${latencyLabel(latency)}`,
      fmt(f.rps, 0),
      fmt(floorRatio),
      fmt(f.p99),
      fmt(1e6 / perCpu(f), 0),
      a ? fmt(a.rps / baseline.rps) : 'n/a',
      a ? fmt(a.p99) : 'n/a',
      a ? fmt(1e6 / perCpu(a), 0) : 'n/a',
      a ? fmt(perCpu(f) / perCpu(a)) : 'n/a',
      beyond.length === 0 ? 'within the floor' : `${beyond.join(' and ')} BEYOND THE FLOOR`,
    ]);
  }
  return (
    `\nThe floor on SQLite (floor.ts: bare Fastify and better-sqlite3 statements prepared once, the same rows and requests; ` +
    `no sign-in, validation, audit or read cache): no design of the app can pass a target the floor itself misses on this machine\n${table(rows)}\n`
  );
}

function printExplain(label: string, result: ExplainResult): void {
  process.stdout.write(
    `  ${label}: ${result.rows} row(s), direct query (no HTTP) median ${fmt(result.medianMs, 3)} ms\n` +
      `    SQL:  ${result.sql}\n` +
      result.plan.map((line) => `    plan: ${line}\n`).join(''),
  );
}

// ---------------------------------------------------------------------------------------------
// Main

const servers = new ServerChildren(serverScript);
let dataDir: string | undefined;
let postgres: PostgresServer | undefined;

async function cleanup(): Promise<void> {
  await servers.stopAll();
  await postgres?.stop().catch(() => undefined);
  postgres = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

const randomInt = (below: number) => Math.floor(Math.random() * below);

interface Scenario {
  key: ScenarioKey;
  name: string;
  ratioTarget?: number;
  latency: LatencyTarget;
  spec: RequestSpec;
}

/** Every scenario against one seeded server, its answers checked first. */
async function scenariosFor(app: ServerChild, token: string): Promise<Scenario[]> {
  const { tenantId, firstId, lastId } = app.ready;
  if (tenantId === undefined || firstId === undefined || lastId === undefined) throw new Error('voxplan server did not report its tenant and ids');
  const auth = { authorization: `Bearer ${token}` };
  const tenantAuth = { ...auth, 'x-tenant-id': String(tenantId) };
  const jsonTenantAuth = { ...tenantAuth, 'content-type': 'application/json' };
  const rangeFrom = (start: number) => ({ name: { between: [destName(start), destName(start + RANDOM_RANGE - 1)] } });
  const listAt = (start: number) =>
    `/api/v1/destinations?filter=${encodeURIComponent(JSON.stringify({ where: rangeFrom(start), order: ['name ASC'], limit: 25 }))}`;
  const countAt = (start: number) => `/api/v1/destinations/count?where=${encodeURIComponent(JSON.stringify(rangeFrom(start)))}`;
  const randomStart = () => randomInt(settings.rows - RANDOM_RANGE + 1);
  const randomId = () => firstId + randomInt(lastId - firstId + 1);
  // Names and URIs of created rows are unique across the warm-up, the measured run and the profile;
  // they sort after every seeded name, so the ranges above keep their counts.
  let created = 0;
  const createBody = () => {
    created += 1;
    return JSON.stringify({ name: `new ${process.pid} ${created}`, kind: 'voice', uri: `sip:new${created}@bench.example` });
  };
  let updated = 0;
  const updateBody = () => JSON.stringify({ description: `bench update ${(updated += 1)}` });

  const usersPath = '/api/v1/users/1';
  const listPath = `/api/v1/destinations?filter=${encodeURIComponent(JSON.stringify(listFilter))}`;
  const countPath = `/api/v1/destinations/count?where=${encodeURIComponent(JSON.stringify(nameRange))}`;
  const get = (path: string, headers: Record<string, string>, next?: () => string): RequestSpec => ({
    method: 'GET',
    path,
    headers,
    ...(next && { next: () => ({ path: next() }) }),
  });

  // The answers must be right before their speed means anything.
  const user = (await checkedJson(`${app.url}${usersPath}`, { headers: auth }, 'GET /users/1')) as { id?: unknown };
  if (user.id !== 1) throw new Error(`GET /users/1 answered ${JSON.stringify(user)}`);
  const names = (start: number, length: number) => Array.from({ length }, (_, i) => destName(start + i));
  const checkList = async (path: string, expected: string[]) => {
    const list = (await checkedJson(`${app.url}${path}`, { headers: tenantAuth }, 'list')) as { name: string }[];
    const got = list.map((row) => row.name);
    if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${path} answered ${JSON.stringify(got)}`);
  };
  const checkCount = async (path: string, expected: number) => {
    const count = (await checkedJson(`${app.url}${path}`, { headers: tenantAuth }, 'count')) as { count?: unknown };
    if (count.count !== expected) throw new Error(`${path} answered ${JSON.stringify(count)}, expected ${expected}`);
  };
  await checkList(listPath, names(rangeLow, 25));
  await checkCount(countPath, expectedCount);
  const start = randomStart();
  await checkList(listAt(start), names(start, 25));
  await checkCount(countAt(start), RANDOM_RANGE);
  const someId = randomId();
  const record = (await checkedJson(`${app.url}/api/v1/destinations/${someId}`, { headers: tenantAuth }, 'GET by id')) as { id?: unknown };
  if (record.id !== someId) throw new Error(`GET /destinations/${someId} answered ${JSON.stringify(record)}`);
  const made = (await checkedJson(`${app.url}/api/v1/destinations`, { method: 'POST', headers: jsonTenantAuth, body: createBody() }, 'create')) as {
    name?: unknown;
  };
  if (made.name !== `new ${process.pid} ${created}`) throw new Error(`create answered ${JSON.stringify(made)}`);
  const body = updateBody();
  const patched = (await checkedJson(`${app.url}/api/v1/destinations/${someId}`, { method: 'PATCH', headers: jsonTenantAuth, body }, 'update')) as {
    description?: unknown;
  };
  if (JSON.stringify({ description: patched.description }) !== body) throw new Error(`update answered ${JSON.stringify(patched)}`);

  const p95 = { percentile: 95, ms: 10 } as const;
  const p99 = { percentile: 99, ms: 10 } as const;
  return [
    { key: 'users', name: 'GET /users/1 (cached)', ratioTarget: 0.5, latency: p95, spec: get(usersPath, auth) },
    { key: 'list', name: 'list 25 of 100k by name range (cached)', ratioTarget: 0.3, latency: p95, spec: get(listPath, tenantAuth) },
    { key: 'count', name: 'count by name range (cached)', ratioTarget: 0.3, latency: p95, spec: get(countPath, tenantAuth) },
    { key: 'id', name: 'GET destination by random id', ratioTarget: 0.4, latency: p99, spec: get('/api/v1/destinations/1', tenantAuth, () => `/api/v1/destinations/${randomId()}`) },
    { key: 'rlist', name: `list 25 of a random ${RANDOM_RANGE}-name range`, ratioTarget: 0.25, latency: p99, spec: get(listAt(0), tenantAuth, () => listAt(randomStart())) },
    { key: 'rcount', name: `count of a random ${RANDOM_RANGE}-name range`, ratioTarget: 0.3, latency: p99, spec: get(countAt(0), tenantAuth, () => countAt(randomStart())) },
    {
      key: 'create',
      name: 'create a destination',
      ratioTarget: 0.15,
      latency: p99,
      spec: { method: 'POST', path: '/api/v1/destinations', headers: jsonTenantAuth, next: () => ({ path: '/api/v1/destinations', body: createBody() }) },
    },
    {
      key: 'update',
      name: 'update a random destination',
      latency: p99,
      spec: { method: 'PATCH', path: '/api/v1/destinations/1', headers: jsonTenantAuth, next: () => ({ path: `/api/v1/destinations/${randomId()}`, body: updateBody() }) },
    },
  ];
}

/** Which databases this run measures; `both` without PostgreSQL installed falls back to SQLite. */
async function dialectsToRun(): Promise<Dialect[]> {
  if (settings.dialect === 'sqlite') return ['sqlite'];
  try {
    process.stderr.write('starting a throwaway PostgreSQL server\n');
    postgres = await startPostgres();
  } catch (error) {
    if (settings.dialect === 'postgres') throw error;
    process.stdout.write(`NOTE: no PostgreSQL (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): SQLite only\n`);
    return ['sqlite'];
  }
  return settings.dialect === 'both' ? ['sqlite', 'postgres'] : ['postgres'];
}

function profileFile(dialect: Dialect, dialects: Dialect[]): string {
  if (!settings.profileOut) return path.join(dataDir!, `${settings.profileScenario}-${dialect}.cpuprofile`);
  const out = path.resolve(settings.profileOut);
  if (dialects.length === 1) return out;
  const ext = path.extname(out);
  return `${out.slice(0, out.length - ext.length)}.${dialect}${ext}`;
}

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  const cpuModel = os.cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    `Voxplan API bench — node ${process.version}, ${cpuCount} x ${cpuModel}\n` +
      `connections ${settings.connections}, warm-up ${settings.warmupSeconds}s + ${settings.seconds}s per scenario, ` +
      `${settings.rows} destinations, ` +
      (pinning ? `load generator pinned to CPU ${LOADGEN_CPU}, server child to CPU ${SERVER_CPU}\n` : 'no CPU pinning\n') +
      `latency percentiles: exact, from every response time autocannon reports (sub-ms); 'ac p97.5' is autocannon's own (whole ms)\n`,
  );
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-'));
  const dialects = await dialectsToRun();

  // (a) Baseline: bare Fastify hello-world, alone on the server core.
  process.stderr.write('hello-world server\n');
  const hello = await servers.start('hello', {}, serverCpu);
  const helloBefore = await measure('hello-world GET / (first)', hello, { method: 'GET', path: '/', headers: {} });
  await servers.stop(hello);

  const phaseResults: { title: string; verdicts: Verdict[] }[] = [];
  const floorVerdicts: Verdict[] = [];
  const migrated: { dialect: Dialect; verdicts: Verdict[] }[] = [];
  let profileText = '';
  for (const dialect of dialects) {
    // (b) The real app on a fresh database: a new SQLite data dir, or a new PostgreSQL database.
    const appDir = fs.mkdtempSync(path.join(dataDir, `${dialect}-`));
    const env: NodeJS.ProcessEnv = { BENCH_DATA_DIR: appDir, BENCH_ROWS: String(settings.rows) };
    if (dialect === 'postgres') {
      const url = new URL(postgres!.url);
      const name = `bench_${Date.now()}`;
      const admin = new pg.Client({ connectionString: postgres!.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
      url.pathname = `/${name}`;
      env.BENCH_DATABASE_URL = url.toString();
    }
    process.stderr.write(`voxplan server on ${dialect}: migrating and seeding ${settings.rows} destinations\n`);
    const app = await servers.start('voxplan', env, serverCpu);
    process.stdout.write(`\n[${dialect}] seeded tenant ${app.ready.tenantId} with ${app.ready.seededRows} destinations in ${fmt((app.ready.seedMs ?? 0) / 1000, 1)} s\n`);

    const login = await checkedJson(
      `${app.url}/api/v1/login`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BENCH_ADMIN) },
      'login',
    );
    const token = (login as { token?: unknown }).token;
    if (typeof token !== 'string') throw new Error('login answered no token');
    const scenarios = await scenariosFor(app, token);
    const tenantId = app.ready.tenantId!;
    process.stdout.write(
      `scenarios (admin bearer token; destinations with x-tenant-id: ${tenantId}):\n` +
        scenarios.map((s) => `  ${s.name}: ${s.spec.method} ${s.spec.next ? `${decodeURIComponent(s.spec.next().path)}, and so on` : decodeURIComponent(s.spec.path)}\n`).join(''),
    );

    const phases: { title: string; withIndex: boolean }[] = [];
    if (settings.index !== 'with') {
      phases.push({ title: `*** ${dialect}, WITHOUT ${NAME_INDEX.name}: dropped for comparison; the migrations create it ***`, withIndex: false });
    }
    if (settings.index !== 'without') phases.push({ title: `${dialect}, schema as migrated`, withIndex: true });

    for (const phase of phases) {
      process.stdout.write(`\n== ${phase.title}\n`);
      await app.command(phase.withIndex ? { cmd: 'createIndex', ...NAME_INDEX } : { cmd: 'dropIndex', name: NAME_INDEX.name });
      for (const [label, command] of [
        ['list ', { cmd: 'explain', label: 'list', filter: listFilter, tenantId }],
        ['count', { cmd: 'explain', label: 'count', where: nameRange, tenantId }],
      ] as const) {
        const result = await app.command(command);
        if (isExplainResult(result)) printExplain(label, result);
      }
      process.stderr.write(`${dialect}, ${phase.withIndex ? 'with' : 'without'} index\n`);
      const verdicts: Verdict[] = [];
      for (const scenario of scenarios) {
        if (!settings.scenarios.includes(scenario.key)) continue;
        const measurement = await measure(scenario.name, app, scenario.spec);
        verdicts.push({ measurement, ratioTarget: scenario.ratioTarget, latency: scenario.latency });
      }
      phaseResults.push({ title: phase.title, verdicts });
      if (phase.withIndex) migrated.push({ dialect, verdicts });
    }

    if (settings.profile) {
      const profiled = scenarios.find((s) => s.key === settings.profileScenario)!;
      process.stderr.write(`profiling ${profiled.name} on ${dialect}\n`);
      const file = profileFile(dialect, dialects);
      await app.command({ cmd: 'profileStart' });
      const load = await runAutocannon(app.url, profiled.spec, settings.seconds);
      await app.command({ cmd: 'profileStop', file });
      const summary = summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, 25);
      profileText +=
        `\nCPU profile of the server on ${dialect} under ${profiled.name} (${fmt(load.requests.total / load.duration, 0)} req/s while sampling every 200 µs; ` +
        `${load.requests.total} requests)${settings.profileOut ? `, saved to ${file}` : ''}\n${formatSummary(summary)}\n`;
    }
    await servers.stop(app);
  }

  if (settings.floor && dialects.includes('sqlite')) {
    process.stderr.write('the floor on SQLite: seeding\n');
    const floorDir = fs.mkdtempSync(path.join(dataDir, 'floor-'));
    const floor = await servers.start('floor', { BENCH_DATA_DIR: floorDir, BENCH_ROWS: String(settings.rows) }, serverCpu);
    for (const scenario of await scenariosFor(floor, 'floor')) {
      if (!settings.scenarios.includes(scenario.key) || !uncached.includes(scenario.key)) continue;
      const measurement = await measure(scenario.name, floor, scenario.spec);
      floorVerdicts.push({ measurement, ratioTarget: scenario.ratioTarget, latency: scenario.latency });
    }
    await servers.stop(floor);
  }

  // The baseline again, after the app is gone: this machine's throughput drifts between runs.
  const helloAgain = await servers.start('hello', {}, serverCpu);
  const helloAfter = await measure('hello-world GET / (last)', helloAgain, { method: 'GET', path: '/', headers: {} });
  await servers.stop(helloAgain);

  for (const phase of phaseResults) process.stdout.write(report(phase.title, [helloBefore, helloAfter], phase.verdicts));
  if (migrated.length > 1) process.stdout.write(sideBySide([helloBefore, helloAfter], migrated));
  const sqliteVerdicts = migrated.find((run) => run.dialect === 'sqlite')?.verdicts ?? [];
  if (floorVerdicts.length > 0) process.stdout.write(floorReport([helloBefore, helloAfter], floorVerdicts, sqliteVerdicts));
  process.stdout.write(profileText);
  process.stdout.write(
    `\nratio = req/s / best hello-world req/s (run first and last); ±/s = spread of the per-second samples; ` +
      `latency targets at ${settings.connections} connections: p95 < 10 ms for the cached scenarios, p99 <= 10 ms for the others.\n` +
      `srv CPU / loadgen CPU = share of one core used by the server child / by autocannon during the measured run; ` +
      `a loadgen near 100% means the baseline is bounded by the load generator, not by Fastify.\n` +
      `µs CPU/req = server CPU per request; req/CPU-s = req/s per second of server CPU; CPU ratio = that against the baseline's. It is the steadier figure when the ` +
      `hello-world server is not CPU-bound (srv CPU well under 100%: the VM, not Fastify, limited it), but PASS/FAIL uses the plain ratio.\n` +
      `With ${settings.connections} connections always busy, mean latency = ${settings.connections} / req/s, so a latency under 10 ms needs ` +
      `well over ${Math.round(settings.connections / 0.01)} req/s.\n`,
  );
}

let exitCode = 0;
process.on('SIGINT', () => {
  void cleanup().finally(() => process.exit(130));
});
try {
  await main();
  if (failures.length > 0) {
    process.stdout.write(
      `\n!!!!!!!! NON-2XX RESPONSES OR SOCKET ERRORS — THE NUMBERS ABOVE ARE MEANINGLESS !!!!!!!!\n${failures.map((f) => `  ${f}`).join('\n')}\n`,
    );
    exitCode = 1;
  } else if (targetFailures > 0) {
    process.stdout.write(`\n${targetFailures} scenario(s) missed a target (marked FAIL above).\n`);
    if (settings.strict) exitCode = 3;
  }
} catch (error) {
  process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
