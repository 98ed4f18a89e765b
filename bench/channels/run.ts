/**
 * Twilio channel bench: `npm run bench:channels` (bench/README.md, "Channels").
 *
 * Whole phone calls through the Twilio hooks of the real app (a child process, bench/api/server.ts
 * `channels`): the voice hook's first request, each Gather's action with a key, the Dial's action
 * with a DialCallStatus and the status callback, every request signed as Twilio signs it (the
 * twilio library's getExpectedTwilioSignature). autocannon drives them: each connection runs one
 * call's requests in order, again and again, so BENCH_CONNECTIONS calls are in progress at once.
 * A bare Fastify hello-world measured in the same run is the baseline.
 * Environment:
 *   BENCH_SECONDS=5           measured seconds per figure (after BENCH_WARMUP_SECONDS=4 of warm-up)
 *   BENCH_WARMUP_CALLS=6000   whole calls each server answers once before its first figure (warmUpCalls)
 *   BENCH_CONNECTIONS=32      calls in progress at once (and hello-world connections)
 *   BENCH_DIALECT=both        sqlite | postgres | both (PostgreSQL: a throwaway server of its own)
 *   BENCH_INSTANCES=1         0: skip the one-against-two instances figures on PostgreSQL
 *   BENCH_INSTANCE_CPU=0.4    the share of a core each instance is held to in the second pair of those (cgroups; 0: none)
 *   BENCH_STATEMENTS=0        1: print the text of each statement of the one call whose statements are counted
 *   BENCH_COST_ROUNDS=3       rounds of SQLite then PostgreSQL calls whose median ratio of CPU a call is judged (the first is the main figures)
 *   BENCH_PIN=1               0: no CPU pinning
 *   BENCH_PROFILE=0           1: afterwards, CPU-profile the server under the calls' load, per dialect (and the stored floor's)
 *   BENCH_PROFILE_OUT=path    keep that .cpuprofile (the dialect goes before the extension)
 *   BENCH_STRICT=0            1: exit 3 when a target FAILs (failed requests always exit 1)
 *   BENCH_FLOOR=1             0: skip the floor (bench/api/floor.ts: the same call with no engine, one upsert a turn)
 *   BENCH_STORED_FLOOR=1      0: skip the stored floor on each dialect (bench/api/twilio-stored-floor.ts), measured in every round beside the app
 *   BENCH_FLOOR_PG_QUERY=0    1: the PostgreSQL stored floor sends its statements through pg's pool.query, not runNamed
 *   BENCH_CPU_SPLIT=0         1: print each figure's server CPU a request by thread (main, others) and kind (user, system)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatSummary, summarize, type CpuProfile } from '../api/cpu-profile.ts';
import { POSTGRES_OVER_SQLITE, postgresOverSqliteLimit } from '../budgets.ts';
import { runBench } from '../lib/bench-main.ts';
import { benchDatabases, copyDatabase, type Dialect, dialectsOf, pinPostgres } from '../lib/dialects.ts';
import { envNumber } from '../lib/env.ts';
import { fmt, median, pct, runLoad, table } from '../lib/load.ts';
import { canPin, cpuCount, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { BLOCKS_PER_CALL } from './ivr-plan.ts';
import {
  callRequests,
  checkOneCall,
  checkStoredCall,
  type Measurement,
  measureCalls,
  PUBLIC_URL,
  REQUESTS_PER_CALL,
  seedTwilioIvr as seed,
  TOKEN,
  warmUpCalls,
  wrongAnswers,
} from './twilio-call.ts';

const settings = {
  seconds: envNumber('BENCH_SECONDS', 5),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 4),
  connections: envNumber('BENCH_CONNECTIONS', 32),
  dialects: dialectsOf(process.env.BENCH_DIALECT),
  instances: process.env.BENCH_INSTANCES !== '0',
  pin: process.env.BENCH_PIN !== '0',
  profile: process.env.BENCH_PROFILE === '1',
  profileOut: process.env.BENCH_PROFILE_OUT,
  strict: process.env.BENCH_STRICT === '1',
  floor: process.env.BENCH_FLOOR !== '0',
  storedFloor: process.env.BENCH_STORED_FLOOR !== '0',
  instanceCpu: envNumber('BENCH_INSTANCE_CPU', 0.4),
  costRounds: Math.max(1, envNumber('BENCH_COST_ROUNDS', 3)),
  warmupCalls: envNumber('BENCH_WARMUP_CALLS', 6000),
};
if (settings.connections < 2 || settings.connections % 2 !== 0) throw new Error('BENCH_CONNECTIONS must be an even number, 2 or more (two instances share them)');

/** The issues' targets: on SQLite (ratio, p99, CPU a call), and PostgreSQL's CPU a call against SQLite's (issue 29). */
const TARGET = { ratio: 0.25, p99Ms: 20, cpuMsPerCall: 1 };

const serverScript = path.resolve(import.meta.dirname, '../api/server.ts');
const pinning = settings.pin && canPin();
const measure = (name: string, servers: ServerChild[], calls: boolean) =>
  measureCalls(name, servers, calls, { connections: settings.connections, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds });

// ---------------------------------------------------------------------------------------------
// Report

let targetFailures = 0;
const verdict = (ok: boolean) => {
  if (!ok) targetFailures++;
  return ok ? 'PASS' : 'FAIL';
};

function report(baseline: Measurement, rows: Array<{ m: Measurement; targets: boolean }>): string {
  const header = ['figure', 'turns/s', 'calls/s', 'ratio', 'p50 ms', 'p99 ms', 'ms CPU/turn', 'ms CPU/call', 'srv CPU', 'loadgen CPU', 'load avg', 'failed', 'targets'];
  const lines = [header];
  for (const { m, targets } of rows) {
    const ratio = m.rps / baseline.rps;
    const checks = targets
      ? [
          `ratio ${verdict(ratio >= TARGET.ratio)}`,
          `p99 ${verdict(m.p99 <= TARGET.p99Ms)}`,
          `CPU/call ${verdict(m.cpuMsPerCall <= TARGET.cpuMsPerCall)}`,
        ].join(', ')
      : '';
    lines.push([
      m.name,
      fmt(m.rps, 0),
      m.calls ? fmt(m.callsPerSecond, 0) : '',
      fmt(ratio),
      fmt(m.p50),
      fmt(m.p99),
      fmt(m.cpuMsPerRequest, 3),
      m.calls ? fmt(m.cpuMsPerCall, 3) : '',
      m.serverCpu.map(pct).join(' + '),
      pct(m.loadgenCpu),
      fmt(m.load, 1),
      String(m.failed),
      checks,
    ]);
  }
  return table(lines);
}

/**
 * PostgreSQL ÷ SQLite by round and as medians, for the app and the stored floor, and each's app ÷
 * floor; the app's median judged against 1.5, or against 1.5 × the floor's own median when the
 * floor is over 1.5 (budgets.ts, POSTGRES_OVER_SQLITE).
 */
function costReport(app: Record<Dialect, number[]>, floor: Record<Dialect, number[]>): string {
  const ratiosOf = (of: Record<Dialect, number[]>) => of.postgres.map((postgresMs, round) => postgresMs / of.sqlite[round]!).filter((ratio) => Number.isFinite(ratio));
  const appRatios = ratiosOf(app);
  if (appRatios.length === 0) return '';
  const floorRatios = ratiosOf(floor);
  const hasFloor = floorRatios.length === appRatios.length;
  const over = (dialect: Dialect) => app[dialect].map((appMs, round) => appMs / floor[dialect][round]!);
  const lines = appRatios.map((ratio, round) => {
    const apps = `app ${fmt(app.postgres[round]!, 3)} ÷ ${fmt(app.sqlite[round]!, 3)} ms = ${fmt(ratio)}`;
    if (!hasFloor) return `  round ${round + 1}: ${apps}`;
    return (
      `  round ${round + 1}: ${apps}; stored floor ${fmt(floor.postgres[round]!, 3)} ÷ ${fmt(floor.sqlite[round]!, 3)} ms = ${fmt(floorRatios[round]!)}; ` +
      `app ÷ floor: SQLite ${fmt(over('sqlite')[round]!)}, PostgreSQL ${fmt(over('postgres')[round]!)}`
    );
  });
  const appMedian = median(appRatios);
  let text =
    `\nPostgreSQL ÷ SQLite, the Node server's CPU a call (pinned figures; ${appRatios.length} round(s), each ` +
    `${hasFloor ? 'the app on SQLite, on PostgreSQL, then the stored floor on SQLite, on PostgreSQL' : 'the app on SQLite then on PostgreSQL'}, one after the other):\n${lines.join('\n')}\n`;
  if (!hasFloor) return `${text}  median ${fmt(appMedian)}, target ≤ ${POSTGRES_OVER_SQLITE}: ${verdict(appMedian <= POSTGRES_OVER_SQLITE)}.\n`;
  const floorMedian = median(floorRatios);
  const limit = postgresOverSqliteLimit(floorMedian);
  text +=
    `  medians: app PostgreSQL ÷ SQLite ${fmt(appMedian)}; stored floor PostgreSQL ÷ SQLite ${fmt(floorMedian)}; ` +
    `app ÷ floor on SQLite ${fmt(median(over('sqlite')))}, on PostgreSQL ${fmt(median(over('postgres')))}.\n`;
  text +=
    floorMedian > POSTGRES_OVER_SQLITE
      ? `  The stored floor's PostgreSQL ÷ SQLite is ${fmt(floorMedian)}, over ${POSTGRES_OVER_SQLITE}: storing a call on PostgreSQL costs any server on this stack that much more, ` +
        `so the app's PostgreSQL ÷ SQLite is judged against ${POSTGRES_OVER_SQLITE} × ${fmt(floorMedian)} = ${fmt(limit)}: ${fmt(appMedian)} ${verdict(appMedian <= limit)}.\n`
      : `  The stored floor's PostgreSQL ÷ SQLite is ${fmt(floorMedian)}, within ${POSTGRES_OVER_SQLITE}: the target stays ${POSTGRES_OVER_SQLITE}: ${fmt(appMedian)} ${verdict(appMedian <= limit)}; ` +
        `the app's excess is where its app ÷ floor is the larger.\n`;
  return text;
}

// ---------------------------------------------------------------------------------------------
// Main

const servers = new ServerChildren(serverScript);
let dataDir: string | undefined;

async function profiled(server: ServerChild, dialect: string): Promise<string> {
  const file = settings.profileOut
    ? (() => {
        const out = path.resolve(settings.profileOut);
        const ext = path.extname(out);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        return `${out.slice(0, out.length - ext.length)}.${dialect}${ext}`;
      })()
    : path.join(dataDir!, `channels-${dialect}.cpuprofile`);
  await server.command({ cmd: 'profileStart' });
  const result = await runLoad(server, { requests: callRequests() }, settings.connections, settings.seconds);
  await server.command({ cmd: 'profileStop', file });
  const summary = summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, 25);
  return (
    `\nCPU profile of the server on ${dialect} under the calls (${fmt(result.requests.total / result.duration, 0)} turns/s while sampling every 200 µs)` +
    `${settings.profileOut ? `, saved to ${file}` : ''}\n${formatSummary(summary)}\n`
  );
}

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  process.stdout.write(
    `Voxplan channels bench (Twilio) — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}\n` +
      `${settings.connections} calls at a time, warm-up ${settings.warmupSeconds}s + ${settings.seconds}s per figure; ` +
      `a call: ${REQUESTS_PER_CALL} signed webhook requests (turns), ${BLOCKS_PER_CALL} blocks; ` +
      (pinning ? `load generator on CPU ${LOADGEN_CPU}, server on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-channels-'));
  dataDir = tempDir;
  servers.onStopAll(() => fs.rmSync(tempDir, { recursive: true, force: true }));
  const { dialects } = settings;
  const databaseUrl = await benchDatabases(servers, dialects);
  const serverCpu = pinning ? SERVER_CPU : undefined;
  // PostgreSQL shares the load generator's core, never the measured server's (pinPostgres).
  if (pinning) await pinPostgres([LOADGEN_CPU]);

  const hello = await servers.start('hello', {}, serverCpu);
  const helloFirst = await measure('hello-world GET / (first)', [hello], false);
  await servers.stop(hello);

  const rows: Array<{ m: Measurement; targets: boolean }> = [];
  let floor: Measurement | undefined;
  if (settings.floor) {
    // The least any server on this stack does for the same call: the signature, the TwiML and a stored turn.
    const floorEnv = { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'floor-')), BENCH_PUBLIC_URL: PUBLIC_URL, BENCH_TWILIO_TOKEN: TOKEN };
    const floorServer = await servers.start('twilio-floor', floorEnv, serverCpu);
    await checkOneCall(floorServer);
    await warmUpCalls(floorServer, settings.warmupCalls);
    floor = await measure('floor (SQLite; no engine)', [floorServer], true);
    rows.push({ m: floor, targets: false });
    await servers.stop(floorServer);
  }
  let profileText = '';
  let instancesText = '';
  let statementsText = '';
  /** The Node server's CPU a call, per dialect and round, from the pinned figures (issue 29: PostgreSQL within 1.5 times SQLite). */
  const perCall: Record<Dialect, number[]> = { sqlite: [], postgres: [] };
  /** Each dialect's pinned app, kept for the rounds after the first, and its environment. */
  const pinned = new Map<Dialect, { app: ServerChild; env: NodeJS.ProcessEnv }>();
  /** Each dialect's stored floor, on a copy of its app's seeded database, and its CPU a call by round. */
  const storedFloors = new Map<Dialect, ServerChild>();
  const floorPerCall: Record<Dialect, number[]> = { sqlite: [], postgres: [] };
  for (const dialect of dialects) {
    const env: NodeJS.ProcessEnv = {
      BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `${dialect}-`)),
      BENCH_PUBLIC_URL: PUBLIC_URL,
      BENCH_MASTER_KEY: randomBytes(32).toString('hex'),
    };
    const url = await databaseUrl(dialect);
    if (url !== undefined) env.BENCH_DATABASE_URL = url;
    process.stderr.write(`voxplan on ${dialect}\n`);
    let app = await servers.start('channels', env, serverCpu);
    await seed(app);
    if (settings.storedFloor) {
      const floorEnv: NodeJS.ProcessEnv = { BENCH_PUBLIC_URL: PUBLIC_URL, BENCH_TWILIO_TOKEN: TOKEN };
      if (env.BENCH_DATABASE_URL) {
        // A database is copied only with no one connected: the app stops for it and starts again on its own.
        await servers.stop(app);
        floorEnv.BENCH_DATABASE_URL = await copyDatabase(env.BENCH_DATABASE_URL, 'floor');
        app = await servers.start('channels', env, serverCpu);
      } else Object.assign(floorEnv, { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `stored-floor-${dialect}-`)), BENCH_SEED_FROM: path.join(env.BENCH_DATA_DIR!, 'voxplan.db') });
      const storedFloor = await servers.start('twilio-stored-floor', floorEnv, serverCpu);
      await checkOneCall(storedFloor);
      await checkStoredCall(floorEnv.BENCH_DATABASE_URL ?? path.join(floorEnv.BENCH_DATA_DIR!, 'floor.db'));
      storedFloors.set(dialect, storedFloor);
    }
    await checkOneCall(app);
    // The read cache keeps an answer from the second time it is asked: a third call's statements are what every call sends under load.
    await checkOneCall(app);
    const sentBefore = await app.command({ cmd: 'statements', log: true });
    await checkOneCall(app);
    const sentAfter = await app.command({ cmd: 'statements', log: true });
    await warmUpCalls(app, settings.warmupCalls);
    const calls = await measure(`Twilio calls, ${dialect}`, [app], true);
    if (typeof sentBefore === 'number' && typeof sentAfter === 'number') {
      // Under load the calls in flight share the read cache's pings: fewer a call than alone.
      const underLoad = calls.counted === undefined ? '' : `; under the load of the figure above, ${fmt(calls.counted / (calls.requests / REQUESTS_PER_CALL), 1)}`;
      statementsText += `\nStatements a call sends to PostgreSQL, each a round trip (one call, the read cache warm): ${sentAfter - sentBefore}${underLoad}.\n`;
    }
    rows.push({ m: calls, targets: dialect === 'sqlite' });
    perCall[dialect].push(calls.cpuMsPerCall);
    if (settings.profile) profileText += await profiled(app, dialect);
    pinned.set(dialect, { app, env });
  }
  // The machine's other work moves a figure by a third or more from one minute to the next: the
  // ratio is judged on rounds of the two measured one right after the other, by their median.
  // Each round: the app on each dialect, then the stored floor on each, one after the other.
  const measureFloors = async (round: number) => {
    for (const [dialect, storedFloor] of storedFloors) {
      const calls = await measure(`stored floor, ${dialect}${round > 1 ? ` (round ${round})` : ''}`, [storedFloor], true);
      rows.push({ m: calls, targets: false });
      floorPerCall[dialect].push(calls.cpuMsPerCall);
    }
  };
  for (const storedFloor of storedFloors.values()) await warmUpCalls(storedFloor, settings.warmupCalls);
  await measureFloors(1);
  if (settings.profile) for (const [dialect, storedFloor] of storedFloors) profileText += await profiled(storedFloor, `stored-floor-${dialect}`);
  if (pinned.size === 2) {
    for (let round = 2; round <= settings.costRounds; round++) {
      for (const [dialect, { app }] of pinned) {
        const calls = await measure(`Twilio calls, ${dialect} (round ${round})`, [app], true);
        rows.push({ m: calls, targets: false });
        perCall[dialect].push(calls.cpuMsPerCall);
      }
      await measureFloors(round);
    }
  }
  for (const { app } of pinned.values()) await servers.stop(app);
  for (const storedFloor of storedFloors.values()) await servers.stop(storedFloor);

  const postgres = pinned.get('postgres');
  if (postgres && settings.instances) {
    const { env } = postgres;
    // Every process may use either core here, the load generator too: one instance against two.
    if (pinning) {
      pinSelf('all');
      await pinPostgres('all');
    }
    const first = await servers.start('channels', env, undefined);
    const one = await measure('PostgreSQL, 1 instance (unpinned)', [first], true);
    const secondDir = fs.mkdtempSync(path.join(dataDir, 'postgres-b-'));
    const second = await servers.start('channels', { ...env, BENCH_DATA_DIR: secondDir }, undefined);
    const two = await measure('PostgreSQL, 2 instances (unpinned)', [first, second], true);
    await Promise.all([servers.stop(first), servers.stop(second)]);
    rows.push({ m: one, targets: false }, { m: two, targets: false });
    // The same with each instance held to a share of a core, as instances on machines of their own
    // each have a budget: whether a second instance adds calls is then the instances' question,
    // not which process of this machine's two cores the scheduler favours.
    let capped: { one: Measurement; two: Measurement } | undefined;
    if (settings.instanceCpu > 0) {
      const share = fmt(settings.instanceCpu, 2);
      const cappedFirst = await servers.start('channels', env, undefined);
      if (cappedFirst.capCpu(settings.instanceCpu)) {
        const cappedOne = await measure(`PostgreSQL, 1 instance (${share} of a core)`, [cappedFirst], true);
        const cappedSecond = await servers.start('channels', { ...env, BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'postgres-c-')) }, undefined);
        if (cappedSecond.capCpu(settings.instanceCpu)) {
          capped = { one: cappedOne, two: await measure(`PostgreSQL, 2 instances (${share} of a core each)`, [cappedFirst, cappedSecond], true) };
          rows.push({ m: capped.one, targets: false }, { m: capped.two, targets: false });
        }
        await servers.stop(cappedSecond);
      }
      await servers.stop(cappedFirst);
    }
    if (pinning) pinSelf([LOADGEN_CPU]);
    const judged = capped ?? { one, two };
    const grows = judged.two.callsPerSecond > judged.one.callsPerSecond;
    const growth = (pair: { one: Measurement; two: Measurement }) =>
      `${fmt(pair.one.callsPerSecond, 0)} → ${fmt(pair.two.callsPerSecond, 0)} calls/s (×${fmt(pair.two.callsPerSecond / pair.one.callsPerSecond)}), ` +
      `${fmt(pair.one.cpuMsPerCall, 3)} → ${fmt(pair.two.cpuMsPerCall, 3)} ms of Node CPU a call`;
    instancesText =
      `\nTwo instances on PostgreSQL (calls spread over them, ${settings.connections / 2} calls at a time each): unpinned ${growth({ one, two })}` +
      (capped ? `; each held to ${fmt(settings.instanceCpu, 2)} of a core ${growth(capped)}` : '; no CPU caps here (BENCH_INSTANCE_CPU=0, or cgroups not writable)') +
      `. Calls/s grow with the instances${capped ? ' (held to their share)' : ''}: ${verdict(grows)}.\n` +
      `This machine has ${cpuCount} cores for the instances, PostgreSQL and the load generator together (unpinned, the load generator used ` +
      `${pct(two.loadgenCpu)} of a core, the instances ${two.serverCpu.map(pct).join(' + ')}, load average ${fmt(two.load, 1)}): ` +
      `unpinned, a second instance only gets what PostgreSQL, the load generator and the machine's other work leave, so twice one is not to be expected; ` +
      `held to a share of a core each, as on machines of their own, a second instance adds its share unless the two hold each other back.\n`;
  }

  const helloAgain = await servers.start('hello', {}, serverCpu);
  const helloLast = await measure('hello-world GET / (last)', [helloAgain], false);
  await servers.stop(helloAgain);
  const baseline = helloLast.rps > helloFirst.rps ? helloLast : helloFirst;

  process.stdout.write(`\n${report(baseline, [{ m: helloFirst, targets: false }, { m: helloLast, targets: false }, ...rows])}\n`);
  const costText = costReport(perCall, floorPerCall);
  process.stdout.write(statementsText + costText + instancesText);
  if (floor) {
    const floorRatio = floor.rps / baseline.rps;
    process.stdout.write(
      `\nThe floor (bench/api/floor.ts): the same six requests, each checked with the twilio library's validateRequest, answered with its VoiceResponse ` +
        `and stored as one SQLite upsert (the status callback: one insert), on bare Fastify with no engine, plan, session or report: ` +
        `ratio ${fmt(floorRatio)} (target ${TARGET.ratio}: ${floorRatio >= TARGET.ratio ? 'within the floor' : 'BEYOND THE FLOOR'}), ` +
        `${fmt(floor.cpuMsPerCall, 3)} ms of CPU a call (target ${TARGET.cpuMsPerCall}: ${floor.cpuMsPerCall <= TARGET.cpuMsPerCall ? 'within the floor' : 'BEYOND THE FLOOR'}), p99 ${fmt(floor.p99)} ms. ` +
        `No design of the app can pass a target the floor misses on this machine.\n`,
    );
  }
  process.stdout.write(profileText);
  process.stdout.write(
    `\nturns/s = webhook requests a second (${REQUESTS_PER_CALL} a call); ratio = turns/s ÷ the better hello-world req/s; ` +
      `ms CPU/call = the server process's CPU (user + system, /proc) over the measured run ÷ calls; on PostgreSQL the Node server's alone.\n` +
      `srv CPU / loadgen CPU = share of one core used by each server / by autocannon; a server well under 100% with a high load average was held back by other work on the machine.\n` +
      `Targets (SQLite): ratio ≥ ${TARGET.ratio}, p99 ≤ ${TARGET.p99Ms} ms, ≤ ${TARGET.cpuMsPerCall} ms of server CPU a call.\n`,
  );
}

await runBench(servers, main, () => ({ failures: wrongAnswers, targetFailures, strict: settings.strict }));
