/**
 * The Lua runner (packages/engine/src/lua): runs per second of a trivial `fx` script, one at a time
 * and with every worker busy, and whether memory stays flat over many runs (a fresh Lua state per
 * run must leave nothing behind). `BENCH_RUNS` (default 10000) runs per phase.
 *
 *   npx tsx bench/engine/lua.ts
 */
import { LuaScriptRunner } from '../../packages/engine/src/lua/index.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 10_000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const script = 'local n = vars.count + 1 if n > 1 then return "more", { count = n } end return "one"';
const vars = { count: 1, caller: '+5511999990000' };

const runner = new LuaScriptRunner({ workers: WORKERS });
await runner.warm();

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const memory = () => {
  globalThis.gc?.();
  return process.memoryUsage();
};

async function phase(name: string, inFlight: number): Promise<void> {
  let started = 0;
  let failures = 0;
  const lane = async () => {
    while (started < RUNS) {
      started++;
      const result = await runner.run({ script, vars });
      if (!result.ok || result.exit !== 'more') failures++;
    }
  };
  const begin = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (performance.now() - begin) / 1000;
  console.log(`  ${name.padEnd(28)} ${(RUNS / seconds).toFixed(0).padStart(6)} runs/s   ${((seconds * 1000) / RUNS).toFixed(3)} ms/run${failures ? `   ${failures} FAILED` : ''}`);
}

console.log(`Lua runner: ${WORKERS} workers, ${RUNS} runs per phase`);
await phase('warm-up', WORKERS);
const before = memory();
await phase('one at a time', 1);
await phase(`${WORKERS * 2} in flight`, WORKERS * 2);
const after = memory();
console.log(`  rss ${mib(before.rss)} → ${mib(after.rss)}   main heap ${mib(before.heapUsed)} → ${mib(after.heapUsed)}   (over ${2 * RUNS} runs)`);
await runner.close();
