/**
 * Engine turns per second, in process: the 20-block IVR of fixtures/plans/benchmark-ivr.json,
 * in-memory ports (no network, no database), three kinds of calls in rotation. A turn is one
 * `startSession` or `handleEvent`. Reports turns per second of wall time and of CPU time
 * (process.cpuUsage), the latter being turns per second per core. Target: ≥ 50,000 turns/s per core.
 *
 * It measures the interpreter. The Lua block's script runs in real Lua in the calls checked
 * before measuring; the measured calls get the answer Lua gave there, because a Lua run (a round
 * trip to a worker thread, about 0.3 ms) would otherwise be most of the billing call. Lua is
 * measured on its own by bench/engine/lua.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compilePlan } from '@voxplan/blocks/runtime';
import { type EngineEvent, type Session, type SessionInit, handleEvent, startSession } from '@voxplan/engine';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { ScriptResult, ScriptRunner } from '@voxplan/engine/ports';
import { type MemoryWorld, memoryPorts } from '@voxplan/engine/testing';

const TARGET_TURNS_PER_CPU_SECOND = 50_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
/** `1`: also write each session as JSON and read it back every turn, as a host storing it would. */
const withJson = process.env.BENCH_JSON === '1';

const raw: unknown = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/plans/benchmark-ivr.json'), 'utf8'));
const plan = compilePlan(raw);
const world: MemoryWorld = {
  plans: [plan],
  destinations: [{ id: 1, name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example' }],
  schedules: { 1: 'in_hours' },
  http: [{ url: 'https://crm.example/api/customers', body: { customer: { name: 'Ana', tier: 'gold' } } }],
};

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
const checkedPorts = memoryPorts(world, realLua);
const ports = memoryPorts(world, replayedLua);

/** The events after `start` of each kind of call, and the disposition it must end with. */
const calls: Array<{ name: string; events: EngineEvent[]; disposition: string }> = [
  { name: 'sales, answered', events: [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' }], disposition: 'routed' },
  { name: 'support, then the survey', events: [{ type: 'digits', digits: '2' }, { type: 'digits', digits: '1' }, { type: 'digits', digits: '5' }], disposition: 'retained' },
  { name: 'billing, then the survey', events: [{ type: 'digits', digits: '3' }, { type: 'digits', digits: '4' }], disposition: 'retained' },
];

let sessionCounter = 0;
const init = (): SessionInit => ({
  id: `bench-${++sessionCounter}`,
  tenant_id: 1,
  plan_id: plan.id,
  channel: 'voice',
  provider: 'simulator',
  caller: '+5511999990000',
  called: '+551130000000',
});
const store = (session: Session): Session => (withJson ? (JSON.parse(JSON.stringify(session)) as Session) : session);

/** Runs one call to its end; returns the number of turns. `check`: on real Lua, and it must end as the kind says. */
async function call(kind: (typeof calls)[number], check: boolean): Promise<number> {
  const callPorts = check ? checkedPorts : ports;
  let result = await startSession(init(), callPorts);
  for (const event of kind.events) result = await handleEvent(store(result.session), event, callPorts);
  if (check && (result.session.status !== 'ended' || result.session.disposition !== kind.disposition || result.session.failure)) {
    throw new Error(`call '${kind.name}' ended ${result.session.status}/${result.session.disposition}: ${JSON.stringify(result.session.failure)}`);
  }
  // The in-memory ports keep every request for tests to read; a benchmark must not grow them.
  for (const list of Object.values(callPorts.log)) list.length = 0;
  return 1 + kind.events.length;
}

async function measure(durationS: number) {
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const deadline = wallStart + durationS * 1000;
  let turns = 0;
  let count = 0;
  while (performance.now() < deadline) {
    // Batches keep the clock reads out of the way.
    for (let i = 0; i < 300; i++) turns += await call(calls[count++ % calls.length]!, false);
  }
  const wallS = (performance.now() - wallStart) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return { turns, calls: count, wallS, cpuS };
}

for (const kind of calls) await call(kind, true);
await lua.close();
// The calls take the Lua block's declared exits: a failure here would mean replaying a failure.
for (const result of luaAnswers.values()) if (!result.ok) throw new Error(`the Lua block failed in a checked call: ${result.reason}: ${result.message}`);
await measure(warmupSeconds);
const { turns, calls: callCount, wallS, cpuS } = await measure(seconds);
const perWall = turns / wallS;
const perCpu = turns / cpuS;
const memory = process.memoryUsage();

console.log(`engine, in process (${plan.nodes.size}-block IVR, ${calls.length} kinds of call, ${withJson ? 'session JSON round trip every turn' : 'no storage'})`);
console.log(`  the interpreter alone: the Lua block gets the answer real Lua gave in the checked calls; Lua itself: npx tsx bench/engine/lua.ts`);
console.log(`  ${callCount.toLocaleString('en')} calls, ${turns.toLocaleString('en')} turns in ${wallS.toFixed(2)} s wall, ${cpuS.toFixed(2)} s CPU (${((cpuS / wallS) * 100).toFixed(0)} % of a core)`);
console.log(`  turns/s (wall): ${Math.round(perWall).toLocaleString('en')}`);
// The target is the engine's; with BENCH_JSON=1 the figure shows what storing sessions adds.
const verdict = withJson ? '(engine and JSON; the target applies without BENCH_JSON)' : perCpu >= TARGET_TURNS_PER_CPU_SECOND ? 'PASS' : 'FAIL';
console.log(`  turns/s per core (CPU): ${Math.round(perCpu).toLocaleString('en')}   target ≥ ${TARGET_TURNS_PER_CPU_SECOND.toLocaleString('en')}   ${verdict}`);
console.log(`  CPU per turn: ${((cpuS / turns) * 1e6).toFixed(1)} µs`);
console.log(`  heap used: ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`);
if (process.env.BENCH_STRICT === '1' && !withJson && perCpu < TARGET_TURNS_PER_CPU_SECOND) process.exit(3);
