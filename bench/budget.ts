/**
 * `npm run bench:budget` (bench/README.md): the quick figures of a call's path, each against its
 * floor measured in the same run, held to the budgets of bench/budgets.ts. Run it before handing
 * in a change that touches a call's path (docs/decisions.md). Exit 3 when a figure passes its
 * budget, 1 when an answer was wrong or a request failed (the figures then mean nothing).
 *
 * The server figures keep app and floor up together and alternate them slice by slice within a
 * round (bench/api/interleaved.ts), and judge the median of the rounds' ratios: the machine's other work moves
 * a figure by a third from one minute to the next.
 * Environment:
 *   BUDGET_FIGURES=twilio,session,uncached,signin   the figures measured (all by default)
 *   BUDGET_UNCACHED=id,rlist,rcount,create,update   the uncached requests measured (bench:api's keys; all by default)
 *   BUDGET_ROUNDS=3           rounds of app then floor
 *   BUDGET_SECONDS=2          measured seconds of each figure in a round
 *   BUDGET_WARMUP_SECONDS=3   warm-up before the first round's figures (1 s before the later rounds')
 *   BUDGET_APP_WARMUP_SECONDS=6  the uncached requests' warm-up, app and floor at once, once per request; the
 *                             Twilio call's first round's, for each of its three servers; the IVR's sessions', once
 *   BUDGET_SLICE_SECONDS=1    the server figures: slices of load alternating between app and floor,
 *                             BUDGET_SECONDS of each server a round
 *   BENCH_PIN=1               0: no CPU pinning
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import { type Contender, interleavedRound, type Share, specLoad, warmUp, warmUpTogether } from './api/interleaved.ts';
import { scenariosFor, type ScenarioKey } from './api/scenarios.ts';
import { type Budget, budgets, POSTGRES_OVER_SQLITE } from './budgets.ts';
import { checkOneCall, interleavedCalls, PUBLIC_URL, seedTwilioIvr, TOKEN, wrongAnswers } from './channels/twilio-call.ts';
import { signInFloorKb } from './console/floor.ts';
import { consoleSizes } from './console/sizes.ts';
import { startLookupFloor } from './engine/lookup-floor.ts';
import { seed as seedSimulator, SessionLoad, startCrm, startServer as startSimulatorServer } from './engine/simulator-sessions.ts';
import { runBench } from './lib/bench-main.ts';
import { envNumber } from './lib/env.ts';
import { signIn } from './lib/sign-in.ts';
import { fmt, median, table } from './lib/load.ts';
import { canPin, cpuCount, LOADGEN_CPU, pinSelf, SERVER_CPU, ServerChildren } from './lib/server-child.ts';

const figureKeys = ['twilio', 'session', 'uncached', 'signin'] as const;
type FigureKey = (typeof figureKeys)[number];
const settings = {
  figures: (process.env.BUDGET_FIGURES ?? figureKeys.join(',')).split(',').map((key) => key.trim()) as FigureKey[],
  rounds: Math.max(1, envNumber('BUDGET_ROUNDS', 3)),
  seconds: envNumber('BUDGET_SECONDS', 2),
  warmupSeconds: envNumber('BUDGET_WARMUP_SECONDS', 3),
  /** The uncached requests' app warm-up: its path is larger than the floor's, and V8 takes longer to compile it. */
  appWarmupSeconds: envNumber('BUDGET_APP_WARMUP_SECONDS', 2 * envNumber('BUDGET_WARMUP_SECONDS', 3)),
  /** The uncached requests' slices of load, alternating between app and floor. */
  sliceSeconds: envNumber('BUDGET_SLICE_SECONDS', 1),
  pin: process.env.BENCH_PIN !== '0',
  uncached: process.env.BUDGET_UNCACHED?.split(',').map((key) => key.trim()),
};
const unknown = settings.figures.find((key) => !figureKeys.includes(key));
if (unknown !== undefined) throw new Error(`BUDGET_FIGURES: unknown figure '${unknown}'; known: ${figureKeys.join(', ')}`);

const pinning = settings.pin && canPin();
const serverCpu = pinning ? SERVER_CPU : undefined;
const servers = new ServerChildren(path.resolve(import.meta.dirname, 'api/server.ts'));
const failures: string[] = [];
/** Warm-up of a round's figure: V8 compiles the path in the first round's. */
const warmupOf = (round: number) => (round === 1 ? settings.warmupSeconds : Math.min(1, settings.warmupSeconds));

/** A figure of the run: the app's and the floor's medians over the rounds, and the median of the rounds' ratios. */
interface Result {
  budget: Budget;
  app: number;
  floor: number;
  unit: string;
  /** app ÷ floor each round (one value for a size). */
  ratios: number[];
  /** What is held to the budget: the median ratio, or the size itself. */
  judged: number;
  /** Rounds left out of `judged` (the uncached requests' disturbed rounds). */
  left?: boolean[];
}

function fromRounds(budget: Budget, unit: string, app: number[], floor: number[]): Result {
  const ratios = app.map((value, round) => value / floor[round]!);
  return { budget, unit, app: median(app), floor: median(floor), ratios, judged: median(ratios) };
}

/**
 * A whole Twilio call on SQLite against two floors, each measured in every round: the request's
 * floor (one small upsert a turn) and the stored floor (what the call stores, with no engine and
 * no framework of ours: bench/api/twilio-stored-floor.ts). Both ratios are printed; the budget
 * holds the one against the stored floor (bench/README.md, "Issue 40: the stored floor").
 */
async function twilioCall(dataDir: string): Promise<Result[]> {
  process.stderr.write('Twilio call: the floors and the app\n');
  const twilioEnv = { BENCH_PUBLIC_URL: PUBLIC_URL, BENCH_TWILIO_TOKEN: TOKEN };
  const floor = await servers.start('twilio-floor', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'twilio-floor-')), ...twilioEnv }, serverCpu);
  const appDir = fs.mkdtempSync(path.join(dataDir, 'twilio-'));
  const app = await servers.start('channels', { BENCH_DATA_DIR: appDir, BENCH_PUBLIC_URL: PUBLIC_URL, BENCH_MASTER_KEY: randomBytes(32).toString('hex') }, serverCpu);
  await seedTwilioIvr(app);
  // The stored floor runs on a copy of the app's seeded database: the same tables, indexes, tenant and plan.
  const storedFloorEnv = { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'twilio-stored-floor-')), BENCH_SEED_FROM: path.join(appDir, 'voxplan.db'), ...twilioEnv };
  const storedFloor = await servers.start('twilio-stored-floor', storedFloorEnv, serverCpu);
  await checkOneCall(floor);
  await checkOneCall(storedFloor);
  await checkOneCall(app);
  const appMs: number[] = [];
  const floorMs: number[] = [];
  const storedFloorMs: number[] = [];
  const contenders = [
    { label: 'Twilio calls', server: app },
    { label: 'stored floor', server: storedFloor },
    { label: 'floor', server: floor },
  ];
  const slices = Math.max(1, Math.round(settings.seconds / settings.sliceSeconds));
  for (let round = 1; round <= settings.rounds; round++) {
    process.stderr.write(`  round ${round}\n`);
    // Each round starts with another server, so that none always follows the same one.
    const order = contenders.map((_, index) => contenders[(index + round - 1) % contenders.length]!);
    const warmupSeconds = round === 1 ? settings.appWarmupSeconds : warmupOf(round);
    const perCall = await interleavedCalls(order, { slices, sliceSeconds: settings.sliceSeconds, warmupSeconds, connections: 32, failures });
    const of = (label: string) => perCall[order.findIndex((contender) => contender.label === label)]!;
    appMs.push(of('Twilio calls'));
    storedFloorMs.push(of('stored floor'));
    floorMs.push(of('floor'));
  }
  await Promise.all([servers.stop(app), servers.stop(floor), servers.stop(storedFloor)]);
  return [
    fromRounds(budgets.twilioCall, 'ms CPU a call', appMs, storedFloorMs),
    fromRounds(budgets.twilioCallRequestFloor, 'ms CPU a call', appMs, floorMs),
    fromRounds(budgets.twilioStoredFloor, 'ms CPU a call', storedFloorMs, floorMs),
  ];
}

/**
 * New IVR sessions through the simulator against their floor, interleaved as the other server
 * figures are (api/interleaved.ts). The floor is the same work done the least costly way: the
 * menu-only plan's session on a second simulator server (what the simulator and the session
 * runtime cost alone), plus the IVR's HTTP lookup made bare, by Node's client in a process of its
 * own (engine/lookup-floor.ts). All three are up together, each warmed up alone, then take slices
 * in turn, each one's CPU read over the whole round; after the seed all settle, and after each
 * slice its server finishes what it deferred, as the uncached requests' do. A round in which a side
 * waited for its core is left out as theirs is. The IVR ÷ the menu-only plan alone is shown beside
 * it, as it was judged before (bench/README.md).
 */
async function sessionStart(): Promise<Result[]> {
  process.stderr.write('session start: the IVR and the menu-only plan through the simulator, each on its own server, and the lookup made bare\n');
  const crm = await startCrm();
  const app = await startSimulatorServer(pinning);
  const floor = await startSimulatorServer(pinning);
  const lookup = await startLookupFloor(crm.url, pinning);
  const loads: SessionLoad[] = [];
  try {
    const connections = 16;
    const appSeeded = await seedSimulator(app, crm.url);
    const floorSeeded = await seedSimulator(floor, crm.url);
    // The seed's garbage and WAL go now, in both, not in one side's first rounds.
    await Promise.all([app.command({ cmd: 'settle' }), floor.command({ cmd: 'settle' })]);
    const appLoad = await SessionLoad.open(app, appSeeded, appSeeded.planId, connections);
    const floorLoad = await SessionLoad.open(floor, floorSeeded, floorSeeded.menuPlanId, connections);
    loads.push(appLoad, floorLoad);
    const contender = (label: string, server: typeof app, load: SessionLoad): Contender => ({
      label,
      server,
      load: async (seconds) => {
        const done = await load.run(seconds);
        return { requests: done.sessions, seconds: done.wallS };
      },
    });
    const appSide = contender('the IVR', app, appLoad);
    const menuSide = contender('the menu-only plan', floor, floorLoad);
    const lookupSide: Contender = { label: 'the lookup, bare', server: lookup, load: (seconds) => lookup.run(seconds) };
    const sides = [appSide, menuSide, lookupSide];
    const slices = Math.max(1, Math.round(settings.seconds / settings.sliceSeconds));
    const options = { slices, sliceSeconds: settings.seconds / slices, connections, failures, settle: true };
    process.stderr.write(
      `  warm-up ${settings.appWarmupSeconds}s (the menu-only plan and the bare lookup ${settings.warmupSeconds}s), then ${settings.rounds} round(s) of ${slices} × ${fmt(options.sliceSeconds, 1)}s each, alternating\n`,
    );
    await warmUp([[appSide, settings.appWarmupSeconds], [menuSide, settings.warmupSeconds], [lookupSide, settings.warmupSeconds]], options);
    const ivrMs: number[] = [];
    const menuMs: number[] = [];
    const floorMs: number[] = [];
    const disturbed: boolean[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // Each round starts with another side, so that none always follows the same one.
      const order = sides.map((_, index) => sides[(index + round - 1) % sides.length]!);
      const shares = await interleavedRound(order, options);
      const of = (side: Contender) => shares[order.indexOf(side)]!;
      const [ivr, menu, bare] = [of(appSide), of(menuSide), of(lookupSide)];
      process.stderr.write(
        `    round ${round}: the IVR ${fmt(ivr.µsPerRequest / 1000)} ms (${fmt(ivr.rps, 0)} sessions/s${waitedText(ivr)}), ` +
          `the menu-only plan ${fmt(menu.µsPerRequest / 1000)} ms (${fmt(menu.rps, 0)} sessions/s${waitedText(menu)}), ` +
          `the lookup bare ${fmt(bare.µsPerRequest / 1000, 3)} ms (${fmt(bare.rps, 0)} requests/s${waitedText(bare)})\n`,
      );
      ivrMs.push(ivr.µsPerRequest / 1000);
      menuMs.push(menu.µsPerRequest / 1000);
      floorMs.push((menu.µsPerRequest + bare.µsPerRequest) / 1000);
      disturbed.push(Math.max(ivr.waited, menu.waited, bare.waited) > DISTURBED_WAIT);
    }
    return [
      undisturbed(fromRounds(budgets.sessionStart, 'ms CPU a session', ivrMs, floorMs), disturbed, 'session start'),
      undisturbed(fromRounds(budgets.sessionStartMenuOnly, 'ms CPU a session', ivrMs, menuMs), disturbed, 'session start, the menu-only plan alone'),
    ];
  } finally {
    await Promise.all(loads.map((load) => load.close()));
    await Promise.all([app.stop(), floor.stop(), lookup.stop()]);
    crm.close();
  }
}

const uncachedBudgets: Array<[ScenarioKey, Budget]> = [
  ['id', budgets.uncachedId],
  ['rlist', budgets.uncachedList],
  ['rcount', budgets.uncachedCount],
  ['create', budgets.uncachedCreate],
  ['update', budgets.uncachedUpdate],
];

/**
 * bench:api's uncached requests against its floor, on SQLite. Both servers stay up, and each round
 * alternates slices of load between them (api/interleaved.ts): rounds of app then floor swung by
 * 2× on a busy machine, the floor reaching its steady state sooner than the app. After the seed
 * both collect their garbage and checkpoint (`settle`); each request is warmed up on both at once,
 * and after each slice the server that ran it is let finish what it deferred before the other's
 * slice begins. A round in which either server waited for its core (other work on it) is left out
 * of the median when three others remain (bench/README.md, "Issue 40, fifth pass").
 */
async function uncachedRequests(dataDir: string): Promise<Result[]> {
  const measured = uncachedBudgets.filter(([key]) => settings.uncached?.includes(key) ?? true);
  const rows = 100_000;
  process.stderr.write(`uncached requests: the app and the floor, each seeding ${rows} destinations\n`);
  const app = await servers.start('voxplan', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'api-')), BENCH_ROWS: String(rows) }, serverCpu);
  const floor = await servers.start('floor', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'api-floor-')), BENCH_ROWS: String(rows) }, serverCpu);
  const appScenarios = await scenariosFor(app, await signIn(app.url), rows);
  const floorScenarios = await scenariosFor(floor, await signIn(floor.url), rows);
  // The seed's garbage and WAL go now, in both, not in one side's first rounds.
  await Promise.all([app.command({ cmd: 'settle' }), floor.command({ cmd: 'settle' })]);
  const slices = Math.max(1, Math.round(settings.seconds / settings.sliceSeconds));
  const options = { slices, sliceSeconds: settings.seconds / slices, connections: 50, failures, settle: true };
  const results: Result[] = [];
  for (const [key, budget] of measured) {
    const appScenario = appScenarios.find((scenario) => scenario.key === key)!;
    const floorScenario = floorScenarios.find((scenario) => scenario.key === key)!;
    const appSide: Contender = { label: appScenario.name, server: app, load: specLoad(app, appScenario.spec) };
    const floorSide: Contender = { label: `floor: ${floorScenario.name}`, server: floor, load: specLoad(floor, floorScenario.spec) };
    process.stderr.write(`  ${appScenario.name}: warm-up ${settings.appWarmupSeconds}s, both at once, then ${settings.rounds} round(s) of ${slices} × ${fmt(options.sliceSeconds, 1)}s each, alternating\n`);
    await warmUpTogether([appSide, floorSide], settings.appWarmupSeconds, options);
    const appµs: number[] = [];
    const floorµs: number[] = [];
    const disturbed: boolean[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      // Who starts alternates too, so that neither always runs right after the other.
      const [first, second] = round % 2 === 1 ? [appSide, floorSide] : [floorSide, appSide];
      const shares = await interleavedRound([first, second], options);
      const [appShare, floorShare] = first === appSide ? shares : [shares[1]!, shares[0]!];
      process.stderr.write(
        `    round ${round}: app ${fmt(appShare!.µsPerRequest, 0)} µs (${fmt(appShare!.rps, 0)} req/s${waitedText(appShare!)}), ` +
          `floor ${fmt(floorShare!.µsPerRequest, 0)} µs (${fmt(floorShare!.rps, 0)} req/s${waitedText(floorShare!)})\n`,
      );
      const fewest = Math.min(appShare!.requests, floorShare!.requests);
      if (fewest < THIN_ROUND) thinRounds.push(`${appScenario.name}, round ${round}: ${fewest} requests`);
      appµs.push(appShare!.µsPerRequest);
      floorµs.push(floorShare!.µsPerRequest);
      disturbed.push(Math.max(appShare!.waited, floorShare!.waited) > DISTURBED_WAIT);
    }
    results.push(undisturbed(fromRounds(budget, 'µs CPU a request', appµs, floorµs), disturbed, appScenario.name));
  }
  await Promise.all([servers.stop(app), servers.stop(floor)]);
  return results;
}

/** The console's sign-in route, built for production, and the floor: a Mantine sign-in form alone. */
async function signInJs(dataDir: string): Promise<Result> {
  process.stderr.write('sign-in route: building the console and the floor\n');
  const consoleDir = path.resolve(import.meta.dirname, '../apps/console');
  const outDir = fs.mkdtempSync(path.join(dataDir, 'console-'));
  await build({ root: consoleDir, configFile: path.join(consoleDir, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  const { loginKb } = consoleSizes(outDir);
  const floorKb = await signInFloorKb();
  return { budget: budgets.signInJs, unit: 'KB gzip', app: loginKb, floor: floorKb, ratios: [loginKb / floorKb], judged: loginKb };
}

/**
 * A round (the uncached requests', the session start's) in which a server's event loop waited for its core more than this share of
 * the time it was ready to run (/proc's schedstat): the machine's other work held the core, and
 * the CPU a request of both sides swells with it (caches shared, fewer requests a wake-up), the
 * floor's more in proportion, so that such a round shows the app nearer its floor than it is
 * (bench/README.md, "Issue 40, fifth pass").
 */
const DISTURBED_WAIT = 0.2;
const waitedText = (share: Share) => (Number.isNaN(share.waited) ? '' : `, waited ${fmt(share.waited * 100, 0)} %`);
const disturbedRounds: string[] = [];

/** The figure judged on its undisturbed rounds when three or more are; else on all of them, and said so. */
function undisturbed(result: Result, disturbed: boolean[], name: string): Result {
  const kept = result.ratios.filter((_, round) => !disturbed[round]);
  const count = disturbed.filter(Boolean).length;
  if (count === 0) return result;
  if (kept.length >= 3) {
    disturbedRounds.push(`${name}: ${count} of ${disturbed.length} rounds left out`);
    return { ...result, judged: median(kept), ratios: result.ratios, left: disturbed };
  }
  disturbedRounds.push(`${name}: ${count} of ${disturbed.length} rounds, all counted (fewer than 3 others)`);
  return { ...result, left: disturbed.map(() => false) };
}

let overBudget = 0;
/**
 * Uncached rounds in which a side answered fewer requests than this: one WAL checkpoint, one
 * pause of the machine's, moves such a round's CPU a request by more than a change does.
 */
const THIN_ROUND = 1000;
const thinRounds: string[] = [];

const isWithin = (result: Result) => result.budget.max === null || result.judged <= result.budget.max;

function report(results: Result[]): string {
  const rows = [['figure', 'app', 'floor', 'unit', 'ratio (rounds)', 'ratio', 'budget', '']];
  for (const result of results) {
    const { budget } = result;
    const passed = isWithin(result);
    if (!passed) overBudget++;
    rows.push([
      budget.figure,
      fmt(result.app, result.unit.startsWith('µs') ? 0 : 2),
      fmt(result.floor, result.unit.startsWith('µs') ? 0 : 2),
      result.unit,
      result.ratios.map((ratio, round) => (result.left?.[round] ? `(${fmt(ratio)})` : fmt(ratio))).join(', '),
      fmt(result.ratios.length > 1 ? result.judged : result.ratios[0]!),
      budget.max === null ? 'shown, not judged' : `≤ ${budget.max} ${budget.unit}`,
      budget.max === null ? '' : passed ? 'PASS' : 'FAIL: over budget',
    ]);
  }
  const over = results.filter((result) => !isWithin(result));
  return (
    `\n${table(rows)}\n` +
    (over.length > 0 ? `\nOver budget, and why the budget is what it is (bench/budgets.ts):\n${over.map((result) => `  - ${result.budget.figure}: ${result.budget.reason}`).join('\n')}\n` : '')
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  if (pinning) pinSelf([LOADGEN_CPU]);
  process.stdout.write(
    `Voxplan budget — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}, load average ${fmt(os.loadavg()[0]!, 1)}; ` +
      `${settings.rounds} round(s) of app then floor, warm-up ${settings.warmupSeconds}s then 1s, ${settings.seconds}s a figure; ` +
      (pinning ? `load generator on CPU ${LOADGEN_CPU}, servers on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-budget-'));
  servers.onStopAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const results: Result[] = [];
  const took: string[] = [];
  const timed = async (key: FigureKey, run: () => Promise<Result | Result[]>) => {
    if (!settings.figures.includes(key)) return;
    const began = performance.now();
    results.push(...[await run()].flat());
    took.push(`${key} ${fmt((performance.now() - began) / 1000, 0)} s`);
  };
  await timed('twilio', () => twilioCall(dataDir));
  await timed('session', () => sessionStart());
  await timed('uncached', () => uncachedRequests(dataDir));
  await timed('signin', () => signInJs(dataDir));
  failures.push(...wrongAnswers);
  process.stdout.write(report(results));
  process.stdout.write(
    `\napp and floor: the medians of the rounds; ratio: app ÷ floor, the median of the rounds' own ratios, held to the budget ` +
      `(the sign-in route: its size is). CPU: the server process's (user + system, /proc).\n` +
      `Not measured here: PostgreSQL ÷ SQLite, a Twilio call's CPU (≤ ${POSTGRES_OVER_SQLITE}, or ${POSTGRES_OVER_SQLITE} × the stored floor's own when that is over ${POSTGRES_OVER_SQLITE}; median of three rounds): BENCH_DIALECT=both npm run bench:channels.\n` +
      `${fmt((performance.now() - started) / 1000, 0)} s (${took.join(', ')}), load average ${fmt(os.loadavg()[0]!, 1)} at the end.\n`,
  );
  if (disturbedRounds.length > 0) {
    process.stdout.write(
      `\nRounds in which a server waited for its core over ${DISTURBED_WAIT * 100} % of its running time (the machine's other work; in parentheses above, ` +
        `left out of the median when three others remain): ${disturbedRounds.join('; ')}.\n`,
    );
  }
  if (thinRounds.length > 0) {
    process.stdout.write(
      `\nThe machine was too busy for some uncached rounds (under ${THIN_ROUND} requests a side; their ratios swing by more than a change): ${thinRounds.join('; ')}.\n`,
    );
  }
}

await runBench(servers, main, () => ({ failures, targetFailures: overBudget, strict: true }));
