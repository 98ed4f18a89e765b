/**
 * Engine turns per second, in process: the 20-block IVR of fixtures/plans/benchmark-ivr.json,
 * in-memory ports (no network, no database), three kinds of calls in rotation. A turn is one
 * `startSession` or `handleEvent`. Reports turns per second of wall time and of CPU time
 * (process.cpuUsage), the latter being turns per second per core. Target: ≥ 150,000 turns/s per core (issue 40).
 *
 * It measures the interpreter. The Lua block's script runs in real Lua in the calls checked
 * before measuring; the measured calls get the answer Lua gave there, because a Lua run (a round
 * trip to a worker thread, about 0.3 ms) would otherwise be most of the billing call. Lua is
 * measured on its own by bench/engine/lua.ts.
 */
import path from 'node:path';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { ScriptResult, ScriptRunner } from '@voxplan/engine/ports';
import type { Session } from '@voxplan/engine';
import { calls, engineFixture } from './fixture.ts';

/** Issue 40's goal for the engine's turn; it was 50,000 until then (bench/README.md). */
const TARGET_TURNS_PER_CPU_SECOND = 150_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
/** `1`: also write each session as JSON and read it back every turn, as a host storing it would. */
const withJson = process.env.BENCH_JSON === '1';

/** What real Lua answered for each script in the checked calls. */
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
const fixture = engineFixture(path.resolve(import.meta.dirname, '../../fixtures/plans/benchmark-ivr.json'), realLua, replayedLua);
const store = withJson ? (session: Session): Session => JSON.parse(JSON.stringify(session)) as Session : undefined;

async function measure(durationS: number) {
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const deadline = wallStart + durationS * 1000;
  let turns = 0;
  let count = 0;
  while (performance.now() < deadline) {
    // Batches keep the clock reads out of the way.
    for (let i = 0; i < 300; i++) turns += await fixture.call(calls[count++ % calls.length]!, false, store);
  }
  const wallS = (performance.now() - wallStart) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return { turns, calls: count, wallS, cpuS };
}

for (const kind of calls) await fixture.call(kind, true);
await lua.close();
// The calls take the Lua block's declared exits: a failure here would mean replaying a failure.
for (const result of luaAnswers.values()) if (!result.ok) throw new Error(`the Lua block failed in a checked call: ${result.reason}: ${result.message}`);
await measure(warmupSeconds);
const { turns, calls: callCount, wallS, cpuS } = await measure(seconds);
const perWall = turns / wallS;
const perCpu = turns / cpuS;
const memory = process.memoryUsage();

console.log(`engine, in process (${fixture.blocks}-block IVR, ${calls.length} kinds of call, ${withJson ? 'session JSON round trip every turn' : 'no storage'})`);
console.log(`  the interpreter alone: the Lua block gets the answer real Lua gave in the checked calls; Lua itself: npx tsx bench/engine/lua.ts`);
console.log(`  ${callCount.toLocaleString('en')} calls, ${turns.toLocaleString('en')} turns in ${wallS.toFixed(2)} s wall, ${cpuS.toFixed(2)} s CPU (${((cpuS / wallS) * 100).toFixed(0)} % of a core)`);
console.log(`  turns/s (wall): ${Math.round(perWall).toLocaleString('en')}`);
// The target is the engine's; with BENCH_JSON=1 the figure shows what storing sessions adds.
const verdict = withJson ? '(engine and JSON; the target applies without BENCH_JSON)' : perCpu >= TARGET_TURNS_PER_CPU_SECOND ? 'PASS' : 'FAIL';
console.log(`  turns/s per core (CPU): ${Math.round(perCpu).toLocaleString('en')}   target ≥ ${TARGET_TURNS_PER_CPU_SECOND.toLocaleString('en')}   ${verdict}`);
console.log(`  CPU per turn: ${((cpuS / turns) * 1e6).toFixed(1)} µs`);
console.log(`  heap used: ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`);
if (process.env.BENCH_STRICT === '1' && !withJson && perCpu < TARGET_TURNS_PER_CPU_SECOND) process.exit(3);
