/**
 * `npm test`: the whole suite as two lanes side by side, a core each. Vitest gives a two-core
 * machine one worker (cores - 1), and the console's files run one at a time anyway (one browser at
 * a time), so in one run the API suite waited for the browser and the browser for the API suite.
 *
 * The API's lane runs its projects (unit, sqlite, postgres) one after the other, each its own
 * vitest process, so that each one's wall-clock time can be printed at the end: vitest reports one
 * duration per run, not per project, and CI's budget (docs/decisions.md) is kept or lost project by
 * project. The console's lane builds the console once, then runs its files in batches from a queue
 * (`e2e-queue.ts`) that the API's lane joins when its projects are done.
 *
 * With arguments (`npm test -- apps/server/test/foo.test.ts --project sqlite`) it is plain
 * `vitest run` with them. The output of each run is shown live, each line marked with its project
 * (and batch), and each run's summary is repeated at the end so that the last lines of a log say what
 * failed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import { consoleBuild } from '../apps/console/e2e/build-console.ts';
import { collectDurations, type Durations, E2eQueue, readDurations, writeDurations } from './e2e-queue.ts';

const vitest = ['node_modules/vitest/vitest.mjs', 'run'];
const extra = process.argv.slice(2);

/** The budget of the whole run on CI's two cores (docs/decisions.md). */
const BUDGET_MINUTES = 45;
const LANES = 2;

interface RunResult {
  label: string;
  code: number;
  seconds: number;
  summary: string[];
  /** A console batch's JSON report, whose durations order the next run's queue. */
  report?: string;
  /** A console batch's lane: the API's once its projects are done, or the console's own. */
  lane?: 'api' | 'console';
}

if (extra.length > 0) {
  const child = spawn(process.execPath, [...vitest, ...extra], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const started = Date.now();
  const queue = new E2eQueue(readDurations(), LANES);
  const e2eFileCount = queue.size;
  const reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-e2e-reports-'));
  const e2eRuns: RunResult[] = [];
  let e2eEnded = started;
  let batchNumber = 0;

  /** One lane's turn at the console's queue: batches until it is empty. */
  const drainQueue = async (lane: 'api' | 'console') => {
    for (let files = queue.take(); files.length > 0; files = queue.take()) {
      const label = `e2e#${++batchNumber}`;
      const report = path.join(reportsDir, `${label}.json`);
      const args = [...vitest, '--project', 'e2e', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...files];
      const run = await runNode(label, args, { env: { ...process.env, E2E_SKIP_BUILD: 'true' } });
      e2eRuns.push({ ...run, label: `${label} on the ${lane === 'api' ? 'API' : 'console'} lane`, report, lane });
      e2eEnded = Date.now();
    }
  };

  const build = (async () => {
    const run = await runNode('e2e build', consoleBuild.args, { cwd: consoleBuild.cwd, env: consoleBuild.env() });
    if (run.code !== 0) {
      queue.clear();
      e2eRuns.push(run);
    }
  })();

  const apiLane = async () => {
    const results: RunResult[] = [];
    for (const project of ['unit', 'sqlite', 'postgres']) results.push(await runNode(project, [...vitest, '--project', project]));
    await build;
    await drainQueue('api');
    return results;
  };
  const consoleLane = async () => {
    await build;
    await drainQueue('console');
  };

  const [apiResults] = await Promise.all([apiLane(), consoleLane()]);
  const wholeSeconds = (Date.now() - started) / 1000;

  const durations: Durations = {};
  for (const run of e2eRuns) if (run.report) collectDurations(run.report, durations);
  if (Object.keys(durations).length === e2eFileCount) writeDurations(durations);

  for (const result of [...apiResults, ...e2eRuns]) {
    console.log(`\n==== ${result.label}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`} ====`);
    console.log(result.summary.join('\n'));
  }
  console.log('\n==== Time per project ====');
  for (const result of apiResults) console.log(`${result.label.padEnd(9)} ${formatDuration(result.seconds)}`);
  const onApiLane = e2eRuns.filter((run) => run.lane === 'api');
  console.log(
    `${'e2e'.padEnd(9)} ${formatDuration((e2eEnded - started) / 1000)} (${e2eRuns.length} batches of ${e2eFileCount} files; ` +
      `${onApiLane.length} of them, ${formatDuration(onApiLane.reduce((sum, run) => sum + run.seconds, 0))}, on the API's lane once its projects were done)`,
  );
  const slowest = Object.entries(durations).sort(([, a], [, b]) => b - a).slice(0, 8);
  if (slowest.length > 0) console.log(`slowest console files: ${slowest.map(([file, seconds]) => `${path.basename(file)} ${seconds} s`).join(', ')}`);
  console.log(`${'whole run'.padEnd(9)} ${formatDuration(wholeSeconds)} (budget ${BUDGET_MINUTES} min)`);
  fs.rmSync(reportsDir, { recursive: true, force: true });
  process.exit([...apiResults, ...e2eRuns].every((result) => result.code === 0) ? 0 : 1);
}

function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/** The lines from vitest's failure list (or, without failures, its closing totals) to its end. */
function summaryOf(lines: readonly string[]): string[] {
  const plain = (line: string) => stripVTControlCharacters(line);
  const failed = lines.findIndex((line) => /Failed Tests \d+/.test(plain(line)));
  const totals = lines.findIndex((line) => /^\s*Test Files\s/.test(plain(line)));
  const from = failed >= 0 ? failed : totals >= 0 ? totals : Math.max(0, lines.length - 40);
  return lines.slice(from);
}

/** `node <args>`, its output relayed line by line under `[label]` and kept for the summary. */
function runNode(label: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  const started = Date.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      process.stdout.write(`[${label}] ${line}\n`);
    });
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ label, code: code ?? (signal ? 1 : 0), seconds: (Date.now() - started) / 1000, summary: summaryOf(lines) }));
  });
}
