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
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../../apps/server/test/postgres-server.ts';
import { envNumber } from '../lib/env.ts';
import { signIn } from '../lib/sign-in.ts';
import { canPin, cpuCount, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { formatSummary, summarize, type CpuProfile } from './cpu-profile.ts';
import { measure as measureScenario, type RequestSpec, runAutocannon } from './measure.ts';
import { isExplainResult } from './protocol.ts';
import { floorReport, fmt, printExplain, report, sideBySide, tally, type Verdict } from './report.ts';
import { nameRangeOf, scenarioKeys, scenariosFor, type ScenarioKey, uncached } from './scenarios.ts';

// ---------------------------------------------------------------------------------------------
// Settings

type Dialect = 'sqlite' | 'postgres';

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

const { nameRange, listFilter } = nameRangeOf(settings.rows);

const here = path.dirname(fileURLToPath(import.meta.url));
const serverScript = path.join(here, 'server.ts');
const pinning = settings.pin && canPin();
const serverCpu = pinning ? SERVER_CPU : undefined;
const measureOptions = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, failures: [] as string[] };
const failures = measureOptions.failures;
const measure = (name: string, server: ServerChild, spec: RequestSpec) => measureScenario(name, server, spec, measureOptions);

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

    const token = await signIn(app.url);
    const scenarios = await scenariosFor(app, token, settings.rows);
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
      const load = await runAutocannon(app.url, profiled.spec, settings.seconds, settings.connections);
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
    for (const scenario of await scenariosFor(floor, await signIn(floor.url), settings.rows)) {
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
  } else if (tally.targetFailures > 0) {
    process.stdout.write(`\n${tally.targetFailures} scenario(s) missed a target (marked FAIL above).\n`);
    if (settings.strict) exitCode = 3;
  }
} catch (error) {
  process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
