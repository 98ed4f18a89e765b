/**
 * `npm test`: the whole suite as two vitest runs side by side. Vitest gives a two-core machine one
 * worker (cores - 1), and the console's files run one at a time anyway (one browser at a time), so
 * in one run the API suite waited for the browser and the browser for the API suite: 50 minutes of
 * one busy core. The console's run and the API's run each keep a core instead.
 *
 * With arguments (`npm test -- apps/server/test/foo.test.ts --project sqlite`) it is plain
 * `vitest run` with them. The output of each run is shown live, each line marked with its run, and
 * each run's summary is repeated at the end so that the last lines of a log say what failed.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { stripVTControlCharacters } from 'node:util';

const vitest = ['node_modules/vitest/vitest.mjs', 'run'];
const extra = process.argv.slice(2);

if (extra.length > 0) {
  const child = spawn(process.execPath, [...vitest, ...extra], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const runs = [
    { name: 'api', projects: ['unit', 'sqlite', 'postgres'] },
    { name: 'console', projects: ['e2e'] },
  ];
  const results = await Promise.all(runs.map((run) => runVitest(run.name, run.projects)));
  for (const result of results) {
    console.log(`\n==== ${result.name}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`} ====`);
    console.log(result.summary.join('\n'));
  }
  process.exit(results.every((result) => result.code === 0) ? 0 : 1);
}

/** The lines from vitest's failure list (or, without failures, its closing totals) to its end. */
function summaryOf(lines: readonly string[]): string[] {
  const plain = (line: string) => stripVTControlCharacters(line);
  const failed = lines.findIndex((line) => /Failed Tests \d+/.test(plain(line)));
  const totals = lines.findIndex((line) => /^\s*Test Files\s/.test(plain(line)));
  const from = failed >= 0 ? failed : totals >= 0 ? totals : Math.max(0, lines.length - 40);
  return lines.slice(from);
}

function runVitest(name: string, projects: readonly string[]): Promise<{ name: string; code: number; summary: string[] }> {
  const child = spawn(process.execPath, [...vitest, ...projects.flatMap((project) => ['--project', project])], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), summary: summaryOf(lines) }));
  });
}
