/**
 * Where the uncached requests' app ÷ floor moves between runs (bench/README.md, "Issue 40, fifth
 * pass"): the app and the floor started as bench:budget starts them, then
 *   1. their CPU while idle after the seed, second by second, by thread (the seed's WAL
 *      checkpoint, its garbage);
 *   2. slices of one request alternating between them, each slice's CPU by thread, its requests a
 *      second and the collector's pauses, so that a slice's swing can be told from a change.
 *   npx tsx bench/api/uncached-probe.ts
 * Environment: PROBE_IDLE_SECONDS=15, PROBE_SCENARIO=id (bench:api's key), PROBE_SLICES=20,
 * PROBE_SLICE_SECONDS=1, PROBE_PROFILE_SECONDS=0 (> 0: then profiles each alone, files in /tmp),
 * PROBE_BASE_TREE=/tmp/base (another tree's app in the same slices: head ÷ base, slice by slice),
 * PROBE_PERF_SECONDS=0 (> 0: then `perf record`s each alone, the servers started with
 * --perf-basic-prof, and prints each one's symbols in µs a request: V8's compiler, collector and
 * runtime, SQLite and the kernel beside the JavaScript, which a V8 profile folds into its callers).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { summarize, formatSummary, type CpuProfile } from './cpu-profile.ts';
import { type RequestSpec, runAutocannon } from './measure.ts';
import type { GcResult } from './protocol.ts';
import { scenariosFor, type ScenarioKey } from './scenarios.ts';
import { runBench } from '../lib/bench-main.ts';
import { envNumber } from '../lib/env.ts';
import { signIn } from '../lib/sign-in.ts';
import { fmt, median } from '../lib/load.ts';
import { canPin, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';

const idleSeconds = envNumber('PROBE_IDLE_SECONDS', 15);
const scenarioKey = (process.env.PROBE_SCENARIO ?? 'id') as ScenarioKey;
const slices = envNumber('PROBE_SLICES', 20);
const sliceSeconds = envNumber('PROBE_SLICE_SECONDS', 1);
const profileSeconds = envNumber('PROBE_PROFILE_SECONDS', 0);
/** A tree to compare with (a `git archive` of the base commit, node_modules linked: bench/README.md, Helpers): its app in the same slices. */
const baseTree = process.env.PROBE_BASE_TREE;
const perfSeconds = envNumber('PROBE_PERF_SECONDS', 0);
const serverEnv = perfSeconds > 0 ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --perf-basic-prof`.trim() } : {};
const pinning = process.env.BENCH_PIN !== '0' && canPin();
const servers = new ServerChildren(path.resolve(import.meta.dirname, 'server.ts'));
const failures: string[] = [];

const split = (server: ServerChild) => {
  const s = server.cpuSplit()!;
  return { main: s.mainUser + s.mainSystem, other: s.otherUser + s.otherSystem, system: s.mainSystem + s.otherSystem };
};
const gcOf = async (server: ServerChild) => (await server.command({ cmd: 'gc' })) as GcResult;

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-probe-'));
  servers.onStopAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const rows = 100_000;
  const cpu = pinning ? SERVER_CPU : undefined;
  const app = await servers.start('voxplan', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'api-')), BENCH_ROWS: String(rows), ...serverEnv }, cpu);
  const floor = await servers.start('floor', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'api-floor-')), BENCH_ROWS: String(rows), ...serverEnv }, cpu);
  process.stdout.write(`load average ${fmt(os.loadavg()[0]!, 1)}; idle after the seed, ms CPU a second (main / other threads):\n`);
  for (let second = 1; second <= idleSeconds; second++) {
    const before = [split(app), split(floor)];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = [split(app), split(floor)];
    const ms = (index: number, key: 'main' | 'other') => fmt((after[index]![key] - before[index]![key]) * 1000, 0);
    process.stdout.write(`  ${second}s: app ${ms(0, 'main')} / ${ms(0, 'other')}, floor ${ms(1, 'main')} / ${ms(1, 'other')}\n`);
  }
  const appSpec = (await scenariosFor(app, await signIn(app.url), rows)).find((scenario) => scenario.key === scenarioKey)!.spec;
  const floorSpec = (await scenariosFor(floor, await signIn(floor.url), rows)).find((scenario) => scenario.key === scenarioKey)!.spec;
  const sides = [
    { label: 'app', server: app, spec: appSpec },
    { label: 'floor', server: floor, spec: floorSpec },
  ];
  if (baseTree) {
    const baseServers = new ServerChildren(path.resolve(baseTree, 'bench/api/server.ts'));
    servers.onStopAll(() => baseServers.stopAll());
    const base = await baseServers.start('voxplan', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'api-base-')), BENCH_ROWS: String(rows), ...serverEnv }, cpu);
    const baseSpec = (await scenariosFor(base, await signIn(base.url), rows)).find((scenario) => scenario.key === scenarioKey)!.spec;
    sides.splice(1, 0, { label: 'base', server: base, spec: baseSpec });
  }
  process.stdout.write(`\n${scenarioKey}: slices of ${sliceSeconds}s in turn; µs CPU a request over the slice alone (main / other threads, system), req/s, collections (minor/major, ms)\n`);
  const perSlice = new Map<string, number[]>(sides.map((side) => [side.label, []]));
  for (let n = 1; n <= slices; n++) {
    const cells: string[] = [];
    // Each slice starts with another side, so that none always follows the same one.
    for (const side of sides.map((_, index) => sides[(index + n - 1) % sides.length]!)) {
      const [cpuBefore, gcBefore] = [split(side.server), await gcOf(side.server)];
      const result = await runAutocannon(side.server.url, side.spec, sliceSeconds, 50);
      const [cpuAfter, gcAfter] = [split(side.server), await gcOf(side.server)];
      if (result.non2xx > 0 || result.errors > 0) failures.push(`${side.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      const requests = result.requests.total;
      const µs = (key: 'main' | 'other' | 'system') => fmt(((cpuAfter[key] - cpuBefore[key]) / requests) * 1e6, 0);
      perSlice.get(side.label)!.push(((cpuAfter.main + cpuAfter.other - cpuBefore.main - cpuBefore.other) / requests) * 1e6);
      cells.push(
        `${side.label} ${µs('main')} / ${µs('other')} (${µs('system')} sys), ${fmt(requests / result.duration, 0)}/s, ` +
          `gc ${gcAfter.minor - gcBefore.minor}/${gcAfter.major - gcBefore.major} ${fmt(gcAfter.minorMs + gcAfter.majorMs - gcBefore.minorMs - gcBefore.majorMs, 1)} ms`,
      );
    }
    process.stdout.write(`  ${String(n).padStart(2)}: ${cells.join('   ')}   load ${fmt(os.loadavg()[0]!, 1)}\n`);
  }
  const ratios = (top: string, bottom: string) => perSlice.get(top)!.map((value, index) => value / perSlice.get(bottom)![index]!);
  const skip = Math.min(2, slices - 1);
  const pairs = baseTree ? [['app', 'floor'], ['base', 'floor'], ['app', 'base']] : [['app', 'floor']];
  for (const [top, bottom] of pairs) {
    const all = ratios(top!, bottom!);
    process.stdout.write(`${top} ÷ ${bottom}, slice by slice: ${all.map((ratio) => fmt(ratio)).join(', ')}; median after the first ${skip}: ${fmt(median(all.slice(skip)))}\n`);
  }
  if (profileSeconds > 0) {
    for (const side of sides) {
      const file = `/tmp/probe-${scenarioKey}-${side.label}.cpuprofile`;
      await side.server.command({ cmd: 'profileStart' });
      const result = await runAutocannon(side.server.url, side.spec, profileSeconds, 50);
      await side.server.command({ cmd: 'profileStop', file });
      const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
      process.stdout.write(`\nprofile of the ${side.label}, ${result.requests.total} requests (${file})\n${formatSummary(summarize(profile, 25))}\n`);
    }
  }
  if (perfSeconds > 0) for (const side of sides) await perfOf(side.label, side.server, side.spec);
}

/** `perf record` of one server under load, then its symbols by self time, µs a request (bench/README.md, Helpers). */
async function perfOf(label: string, server: ServerChild, spec: RequestSpec): Promise<void> {
  const file = `/tmp/perf-${scenarioKey}-${label}.data`;
  const recorder = spawn('perf', ['record', '-F', '1999', '-g', '-p', String(server.process.pid), '-o', file], { stdio: 'ignore' });
  const exited = new Promise((resolve) => recorder.once('exit', resolve));
  const result = await runAutocannon(server.url, spec, perfSeconds, 50);
  recorder.kill('SIGINT');
  await exited;
  const report = execFileSync('perf', ['report', '-i', file, '--no-children', '-g', 'none', '-n', '--sort', 'sym', '--stdio'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const requests = result.requests.total;
  const lines = report.split('\n').filter((line) => /^\s+[\d.]+%/.test(line));
  const total = lines.reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[1]), 0);
  const cpuSeconds = total / 1999;
  process.stdout.write(`\nperf of the ${label}: ${requests} requests, ${fmt((cpuSeconds / requests) * 1e6, 1)} µs a request sampled (${file})\n`);
  for (const line of lines.slice(0, 40)) {
    const [share, samples, , ...symbol] = line.trim().split(/\s+/);
    process.stdout.write(`  ${fmt((Number(samples) / 1999 / requests) * 1e6, 2).padStart(7)} µs  ${share!.padStart(6)}  ${symbol.join(' ').slice(0, 110)}\n`);
  }
}

await runBench(servers, main, () => ({ failures, targetFailures: 0, strict: true }));
