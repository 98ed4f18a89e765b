/**
 * `npx tsx bench/channels/warm-curve.ts` (bench/README.md, "Issue 40: warmed by calls, not
 * seconds"): how a server's CPU a turn falls as it answers its first calls, for the app and its
 * stored floor on each dialect. Windows of calls go to each server in turn; each prints the
 * server's CPU a turn over that window and the turns it has answered so far. A figure measured
 * before the curve flattens charges part of V8's one-off compiling to each call, and more of it to
 * a server that answers fewer calls a second.
 * Environment:
 *   CURVE_WINDOWS=8          windows per server
 *   CURVE_SECONDS=4          seconds of calls a window
 *   BENCH_DIALECT=both       sqlite | postgres | both
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from '../lib/bench-main.ts';
import { benchDatabases, copyDatabase, dialectsOf, pinPostgres } from '../lib/dialects.ts';
import { envNumber } from '../lib/env.ts';
import { fmt, runLoad } from '../lib/load.ts';
import { canPin, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { callRequests, checkOneCall, PUBLIC_URL, seedTwilioIvr, TOKEN, wrongAnswers } from './twilio-call.ts';

const servers = new ServerChildren(path.resolve(import.meta.dirname, '../api/server.ts'));
const windows = Math.max(1, envNumber('CURVE_WINDOWS', 8));
const seconds = envNumber('CURVE_SECONDS', 4);
const dialects = dialectsOf(process.env.BENCH_DIALECT);
const failures: string[] = [];

/** The app on `dialect`, seeded with the IVR, and its stored floor on a copy of the same database. */
async function startPair(dialect: string, databaseUrl: string | undefined, dataDir: string, cpu: number | undefined): Promise<[ServerChild, ServerChild]> {
  const env: NodeJS.ProcessEnv = { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `${dialect}-`)), BENCH_PUBLIC_URL: PUBLIC_URL, BENCH_MASTER_KEY: randomBytes(32).toString('hex') };
  if (databaseUrl !== undefined) env.BENCH_DATABASE_URL = databaseUrl;
  let app = await servers.start('channels', env, cpu);
  await seedTwilioIvr(app);
  const floorEnv: NodeJS.ProcessEnv = { BENCH_PUBLIC_URL: PUBLIC_URL, BENCH_TWILIO_TOKEN: TOKEN };
  if (databaseUrl !== undefined) {
    // A database is copied only with no one connected.
    await servers.stop(app);
    floorEnv.BENCH_DATABASE_URL = await copyDatabase(databaseUrl, 'floor');
    app = await servers.start('channels', env, cpu);
  } else Object.assign(floorEnv, { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `floor-${dialect}-`)), BENCH_SEED_FROM: path.join(env.BENCH_DATA_DIR!, 'voxplan.db') });
  const floor = await servers.start('twilio-stored-floor', floorEnv, cpu);
  await checkOneCall(app);
  await checkOneCall(floor);
  return [app, floor];
}

async function main(): Promise<void> {
  const pinning = canPin();
  if (pinning) pinSelf([LOADGEN_CPU]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-warm-curve-'));
  servers.onStopAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const databaseUrl = await benchDatabases(servers, dialects);
  if (pinning) await pinPostgres([LOADGEN_CPU]);
  const sides: Array<{ label: string; server: ServerChild; turns: number; figures: string[] }> = [];
  for (const dialect of dialects) {
    const [app, floor] = await startPair(dialect, await databaseUrl(dialect), dataDir, pinning ? SERVER_CPU : undefined);
    sides.push({ label: `app, ${dialect}`, server: app, turns: 0, figures: [] }, { label: `stored floor, ${dialect}`, server: floor, turns: 0, figures: [] });
  }
  for (let window = 1; window <= windows; window++) {
    for (const side of sides) {
      const before = side.server.cpuSeconds() ?? Number.NaN;
      const splitBefore = side.server.cpuSplit();
      const result = await runLoad(side.server, { requests: callRequests() }, 32, seconds);
      const cpu = (side.server.cpuSeconds() ?? Number.NaN) - before;
      const splitAfter = side.server.cpuSplit();
      // The threads beside the main one: V8's compiler and collector, SQLite's checkpointer.
      const others = splitBefore && splitAfter ? splitAfter.otherUser + splitAfter.otherSystem - splitBefore.otherUser - splitBefore.otherSystem : Number.NaN;
      if (result.non2xx + result.errors + result.timeouts > 0) failures.push(`${side.label}, window ${window}: failed requests`);
      side.turns += result.requests.total;
      side.figures.push(`${fmt((cpu * 1e6) / result.requests.total, 0)}/${fmt((others * 1e6) / result.requests.total, 0)} (${fmt(side.turns / 1000, 0)}k)`);
    }
    process.stderr.write(`window ${window} of ${windows}, load average ${fmt(os.loadavg()[0]!, 1)}\n`);
  }
  process.stdout.write(`µs of server CPU a turn over each window of ${seconds}s / of it, its threads beside the main one's, and (the turns answered by then):\n`);
  for (const side of sides) process.stdout.write(`  ${side.label.padEnd(22)} ${side.figures.join('  ')}\n`);
}

await runBench(servers, main, () => ({ failures: [...failures, ...wrongAnswers], targetFailures: 0, strict: false }));
