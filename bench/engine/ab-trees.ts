/**
 * The session start of two trees side by side (bench/README.md, bench:budget): the IVR and the
 * menu-only plan of a base tree and of this one, four simulator servers up together and their
 * 1-s slices interleaved round after round, each server's CPU read over the round. On a machine
 * whose other work moves a figure by a fifth from one run to the next, a change is judged by the
 * rounds' own head ÷ base, not by runs of the budget an hour apart.
 *
 *   git archive <base> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   (and apps/server/node_modules the same way), then
 *   AB_BASE_TREE=/tmp/base AB_ROUNDS=10 npx tsx bench/engine/ab-trees.ts
 *
 * Packages resolved through node_modules (@voxplan/engine, blocks, contracts) are this tree's in
 * both: compare changes to apps/server this way, not to the packages.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { type Contender, interleavedRound, warmUp } from '../api/interleaved.ts';
import * as head from './simulator-sessions.ts';

const baseTree = process.env.AB_BASE_TREE;
if (!baseTree) throw new Error('AB_BASE_TREE: the base tree to compare with (see the comment at the top)');
const base = (await import(path.resolve(baseTree, 'bench/engine/simulator-sessions.ts'))) as typeof head;
const rounds = Number(process.env.AB_ROUNDS ?? 8);
try {
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
} catch {
  // No taskset: the servers are not pinned either (startServer's `pin`).
}
const pin = process.env.BENCH_PIN !== '0';

const crm = await head.startCrm();
const contenders: Contender[] = [];
const loads: head.SessionLoad[] = [];
const servers: head.Server[] = [];
for (const [tree, sessions] of [['base', base], ['head', head]] as const) {
  for (const plan of ['ivr', 'menu'] as const) {
    const server = await sessions.startServer(pin);
    servers.push(server);
    const seeded = await sessions.seed(server, crm.url);
    const load = await sessions.SessionLoad.open(server, seeded, plan === 'ivr' ? seeded.planId : seeded.menuPlanId, 16);
    loads.push(load);
    contenders.push({
      label: `${tree}-${plan}`,
      server,
      load: async (seconds) => {
        const done = await load.run(seconds);
        return { requests: done.sessions, seconds: done.wallS };
      },
    });
  }
}
const options = { slices: 2, sliceSeconds: 1, connections: 16, failures: [] as string[] };
await warmUp(contenders.map((contender): [Contender, number] => [contender, contender.label.endsWith('ivr') ? 6 : 3]), options);
const rows: Array<Record<string, number>> = [];
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? contenders : [...contenders].reverse();
  const shares = await interleavedRound(order, options);
  const µs = Object.fromEntries(order.map((contender, index) => [contender.label, shares[index]!.µsPerRequest]));
  rows.push(µs);
  console.log(
    `round ${round}: base ${µs['base-ivr']!.toFixed(0)} ÷ ${µs['base-menu']!.toFixed(0)} µs = ${(µs['base-ivr']! / µs['base-menu']!).toFixed(2)}, ` +
      `head ${µs['head-ivr']!.toFixed(0)} ÷ ${µs['head-menu']!.toFixed(0)} µs = ${(µs['head-ivr']! / µs['head-menu']!).toFixed(2)}; ` +
      `head ÷ base: the IVR ${(µs['head-ivr']! / µs['base-ivr']!).toFixed(3)}, the menu-only plan ${(µs['head-menu']! / µs['base-menu']!).toFixed(3)} (load average ${os.loadavg()[0]!.toFixed(1)})`,
  );
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const of = (f: (row: Record<string, number>) => number) => median(rows.map(f)).toFixed(3);
console.log(
  `medians: the IVR ÷ the menu-only plan, base ${of((r) => r['base-ivr']! / r['base-menu']!)}, head ${of((r) => r['head-ivr']! / r['head-menu']!)}; ` +
    `head ÷ base, the IVR ${of((r) => r['head-ivr']! / r['base-ivr']!)}, the menu-only plan ${of((r) => r['head-menu']! / r['base-menu']!)}`,
);
if (options.failures.length > 0) console.log(`failures: ${options.failures.join('; ')}`);
await Promise.all(loads.map((load) => load.close()));
await Promise.all(servers.map((server) => server.stop()));
crm.close();
