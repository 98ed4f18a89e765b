/**
 * `npm test`: the whole suite as two lanes side by side. Vitest gives a two-core machine one
 * worker (cores - 1), and the console's files run one at a time anyway (one browser at a time), so
 * in one run the API suite waited for the browser and the browser for the API suite: 50 minutes of
 * one busy core. The console's lane and the API's lane each keep a core instead.
 *
 * Each test project is its own vitest process (the API lane runs unit, sqlite and postgres one
 * after the other), so that each project's wall-clock time can be printed at the end: vitest
 * reports one duration per run, not per project, and CI's budget (docs/decisions.md) is kept or
 * lost project by project.
 *
 * With arguments (`npm test -- apps/server/test/foo.test.ts --project sqlite`) it is plain
 * `vitest run` with them. The output of each run is shown live, each line marked with its project,
 * and each run's summary is repeated at the end so that the last lines of a log say what failed.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { stripVTControlCharacters } from 'node:util';

const vitest = ['node_modules/vitest/vitest.mjs', 'run'];
const extra = process.argv.slice(2);

/** The budget of the whole run on CI's two cores (docs/decisions.md). */
const BUDGET_MINUTES = 45;

interface ProjectResult {
  project: string;
  code: number;
  seconds: number;
  summary: string[];
}

if (extra.length > 0) {
  const child = spawn(process.execPath, [...vitest, ...extra], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const lanes = [['unit', 'sqlite', 'postgres'], ['e2e']];
  const started = Date.now();
  const results = (await Promise.all(lanes.map(runLane))).flat();
  const wholeSeconds = (Date.now() - started) / 1000;
  for (const result of results) {
    console.log(`\n==== ${result.project}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`} ====`);
    console.log(result.summary.join('\n'));
  }
  console.log('\n==== Time per project ====');
  for (const result of results) console.log(`${result.project.padEnd(9)} ${formatDuration(result.seconds)}`);
  console.log(`${'whole run'.padEnd(9)} ${formatDuration(wholeSeconds)} (budget ${BUDGET_MINUTES} min)`);
  process.exit(results.every((result) => result.code === 0) ? 0 : 1);
}

/** One lane's projects one after the other; a failed project does not stop the next. */
async function runLane(projects: readonly string[]): Promise<ProjectResult[]> {
  const results: ProjectResult[] = [];
  for (const project of projects) results.push(await runProject(project));
  return results;
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

function runProject(project: string): Promise<ProjectResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [...vitest, '--project', project], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      process.stdout.write(`[${project}] ${line}\n`);
    });
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) =>
      resolve({ project, code: code ?? (signal ? 1 : 0), seconds: (Date.now() - started) / 1000, summary: summaryOf(lines) }),
    );
  });
}
