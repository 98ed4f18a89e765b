/**
 * The console's test files as a queue that both of `npm test`'s lanes draw from. The console's
 * lane starts on it at once; the API's lane joins when its own projects are done, so that neither
 * core idles while the other still has files to run (the console's files alone took 39 minutes of
 * one core, the API's 27 of the other).
 *
 * Batches shrink as the queue empties (a quarter of what is left: guided self-scheduling), so that
 * a lane starts few vitest processes early and the two lanes finish close together. The slowest
 * files go first, by the durations of the last full run (`scripts/e2e-durations.json`, written by
 * `npm test`); a file not in it counts as the slowest, so a new file never lands alone at the end.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const e2eDir = path.join(root, 'apps/console/e2e');
export const durationsFile = path.join(root, 'scripts/e2e-durations.json');

/** Seconds each console test file took in the last full run, keyed by its path from the repository's root. */
export type Durations = Record<string, number>;

export function readDurations(): Durations {
  try {
    return JSON.parse(fs.readFileSync(durationsFile, 'utf8')) as Durations;
  } catch {
    return {};
  }
}

export class E2eQueue {
  private readonly files: string[];

  constructor(
    durations: Durations,
    private readonly lanes: number,
  ) {
    const all = fs
      .readdirSync(e2eDir)
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => path.posix.join('apps/console/e2e', name));
    const cost = (file: string) => durations[file] ?? Number.POSITIVE_INFINITY;
    this.files = all.sort((a, b) => cost(b) - cost(a) || a.localeCompare(b));
  }

  get size(): number {
    return this.files.length;
  }

  /** The next files for one vitest process, or none when the queue is empty. */
  take(): string[] {
    const count = Math.max(1, Math.ceil(this.files.length / (2 * this.lanes)));
    return this.files.splice(0, count);
  }

  clear(): void {
    this.files.length = 0;
  }
}

/** Vitest's JSON report (jest's shape): each file's start and end, in milliseconds. */
interface JsonReport {
  testResults?: { name: string; startTime?: number; endTime?: number }[];
}

/** Adds each file's seconds from one batch's JSON report to `into`; a missing or broken report adds nothing. */
export function collectDurations(reportFile: string, into: Durations): void {
  let report: JsonReport;
  try {
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as JsonReport;
  } catch {
    return;
  }
  for (const file of report.testResults ?? []) {
    if (file.startTime === undefined || file.endTime === undefined) continue;
    into[path.relative(root, file.name).split(path.sep).join('/')] = Math.round((file.endTime - file.startTime) / 100) / 10;
  }
}

export function writeDurations(durations: Durations): void {
  const sorted = Object.fromEntries(Object.entries(durations).sort(([, a], [, b]) => b - a));
  fs.writeFileSync(durationsFile, `${JSON.stringify(sorted, null, 2)}\n`);
}
