import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { collectDurations, E2eQueue } from './e2e-queue.ts';

const consoleFiles = fs
  .readdirSync(path.resolve(import.meta.dirname, '../apps/console/e2e'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `apps/console/e2e/${name}`);

describe("the console's test files as npm test's two lanes share them", () => {
  test('every file runs once, the slowest of the last run first and a file it did not time before them', () => {
    const [newest, slow, quick, ...rest] = consoleFiles;
    const durations = Object.fromEntries([[slow, 200], [quick, 3], ...rest.map((file) => [file, 50] as const)]);
    const queue = new E2eQueue(durations, 2);
    const batches: string[][] = [];
    for (let batch = queue.take(); batch.length > 0; batch = queue.take()) batches.push(batch);
    const order = batches.flat();
    expect(order.toSorted()).toEqual(consoleFiles.toSorted());
    expect(order.slice(0, 2)).toEqual([newest, slow]);
    expect(order.at(-1)).toBe(quick);
  });

  test('batches shrink to one file as the queue empties, so that the two lanes end close together', () => {
    const queue = new E2eQueue({}, 2);
    const sizes: number[] = [];
    for (let batch = queue.take(); batch.length > 0; batch = queue.take()) sizes.push(batch.length);
    expect(sizes[0]).toBe(Math.ceil(consoleFiles.length / 4));
    expect(sizes.toSorted((a, b) => b - a)).toEqual(sizes);
    expect(sizes.at(-1)).toBe(1);
  });

  test("each file's seconds are read from vitest's JSON report, by its path from the repository", () => {
    const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-report-')), 'r.json');
    const file = path.resolve(import.meta.dirname, '../apps/console/e2e/look.test.ts');
    fs.writeFileSync(report, JSON.stringify({ testResults: [{ name: file, startTime: 1_000, endTime: 3_150 }, { name: 'no-times.test.ts' }] }));
    const durations = {};
    collectDurations(report, durations);
    collectDurations(`${report}.missing`, durations);
    expect(durations).toEqual({ 'apps/console/e2e/look.test.ts': 2.2 });
  });
});
