/**
 * An interleaved A/B of bench:engine's turn: two versions of the engine in one process, so that
 * both see the same load (on a shared VM back-to-back runs of one version differ by 2×).
 *
 * The base (`AB_BASE`, a git ref, default `main`) is taken with `git archive` into a scratch
 * folder; the head is this tree. Each is bundled with esbuild (`keepNames`, as tsx compiles) from
 * `ab-harness.ts`, its `@voxplan/*` resolving to its own packages. After a warm-up, each run
 * alternates slices of `AB_SLICE_MS` (ABBA order) for `AB_SECONDS`, and sums each version's CPU
 * (process.cpuUsage, GC threads included) and turns over its own slices. Prints each run's
 * µs a turn and turns per CPU-second for both, head ÷ base, and the median ratio of `AB_RUNS`.
 *
 * Usage: npx tsx bench/engine/ab.ts
 *   AB_ONLY=head|base AB_SECONDS=20 node --cpu-prof --import tsx bench/engine/ab.ts  (one version, for a profile)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { ScriptResult, ScriptRunner } from '@voxplan/engine/ports';
import type { Harness } from './ab-harness.ts';

const root = path.resolve(import.meta.dirname, '../..');
const base = process.env.AB_BASE ?? 'main';
const seconds = Number(process.env.AB_SECONDS ?? 8);
const warmupSeconds = Number(process.env.AB_WARMUP_SECONDS ?? 3);
const sliceMs = Number(process.env.AB_SLICE_MS ?? 40);
const runs = Number(process.env.AB_RUNS ?? 3);
const only = process.env.AB_ONLY as 'head' | 'base' | undefined;
// Under node_modules, so that the bundles' externals (esbuild, wasmoon) resolve at run time.
const scratch = path.join(root, 'node_modules/.cache/voxplan-engine-ab');
const planFile = path.join(root, 'fixtures/plans/benchmark-ivr.json');

/** The base's packages in a scratch tree, with its own `@voxplan/*` links. */
function baseTree(): string {
  const dir = path.join(scratch, 'base');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'node_modules/@voxplan'), { recursive: true });
  const tar = execFileSync('git', ['-C', root, 'archive', base, 'packages'], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  for (const name of fs.readdirSync(path.join(dir, 'packages'))) fs.symlinkSync(`../../packages/${name}`, path.join(dir, 'node_modules/@voxplan', name));
  fs.mkdirSync(path.join(dir, 'bench/engine'), { recursive: true });
  for (const file of ['ab-harness.ts', 'fixture.ts']) fs.copyFileSync(path.join(root, 'bench/engine', file), path.join(dir, 'bench/engine', file));
  return dir;
}

async function bundle(tree: string, name: string): Promise<string> {
  const outfile = path.join(scratch, `${name}.mjs`);
  await build({
    entryPoints: [path.join(tree, 'bench/engine/ab-harness.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    keepNames: true,
    outfile,
    nodePaths: [path.join(root, 'node_modules')],
    external: ['esbuild', 'wasmoon'],
    logLevel: 'error',
  });
  return outfile;
}

type HarnessModule = { harness: (planFile: string, checked: ScriptRunner, replayed: ScriptRunner) => Harness };

fs.mkdirSync(scratch, { recursive: true });
const files = { head: await bundle(root, 'head'), base: only === 'head' ? '' : await bundle(baseTree(), 'base') };

const luaAnswers = new Map<string, ScriptResult>();
const lua = new LuaScriptRunner({ workers: 1 });
const realLua: ScriptRunner = {
  async run(request) {
    const result = await lua.run(request);
    luaAnswers.set(request.script, result);
    return result;
  },
};
const replayedLua: ScriptRunner = {
  run: ({ script }) => Promise.resolve(luaAnswers.get(script) ?? { ok: false, reason: 'error', message: 'this script did not run in the checked calls' }),
};

const versions: Array<{ name: 'head' | 'base'; harness: Harness }> = [];
for (const name of ['base', 'head'] as const) {
  if (only !== undefined && only !== name) continue;
  const module = (await import(pathToFileURL(files[name]).href)) as HarnessModule;
  const harness = module.harness(planFile, realLua, replayedLua);
  await harness.check();
  versions.push({ name, harness });
}
await lua.close();
for (const result of luaAnswers.values()) if (!result.ok) throw new Error(`the Lua block failed in a checked call: ${result.reason}: ${result.message}`);

async function run(durationS: number) {
  const totals = versions.map(() => ({ turns: 0, cpuUs: 0 }));
  const deadline = performance.now() + durationS * 1000;
  for (let round = 0; performance.now() < deadline; round++) {
    // ABBA: neither version always runs right after the other's garbage.
    const order = round % 2 === 0 ? versions.map((_, i) => i) : versions.map((_, i) => versions.length - 1 - i);
    for (const i of order) {
      const start = process.cpuUsage();
      const turns = await versions[i]!.harness.slice(sliceMs);
      const cpu = process.cpuUsage(start);
      totals[i]!.turns += turns;
      totals[i]!.cpuUs += cpu.user + cpu.system;
    }
  }
  return totals;
}

const ratios: number[] = [];
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`engine A/B, in process: base ${only === 'head' ? '(not run)' : base}, head this tree; ${runs} runs of ${seconds} s in ${sliceMs} ms slices after ${warmupSeconds} s of warm-up`);
for (let r = 0; r < runs; r++) {
  await run(warmupSeconds);
  const totals = await run(seconds);
  const perTurn = totals.map((t) => t.cpuUs / t.turns);
  const parts = versions.map((v, i) => `${v.name} ${perTurn[i]!.toFixed(2)} µs a turn (${Math.round(1e6 / perTurn[i]!).toLocaleString('en')} turns/CPU-s)`);
  const ratio = versions.length === 2 ? perTurn[1]! / perTurn[0]! : Number.NaN;
  if (!Number.isNaN(ratio)) ratios.push(ratio);
  console.log(`  run ${r + 1}: ${parts.join(', ')}${Number.isNaN(ratio) ? '' : `; head ÷ base ${ratio.toFixed(3)}`}   load ${load()}`);
}
if (ratios.length > 0) {
  const sorted = ratios.slice().sort((a, b) => a - b);
  console.log(`  median head ÷ base, CPU a turn: ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)}`);
}
