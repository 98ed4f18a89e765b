import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { consoleSizes, DASHBOARD_TARGET_KB, EDITOR_TARGET_KB, LOGIN_TARGET_KB } from '../../../bench/console/sizes.ts';

// The console as build-console.ts built it for the other e2e tests, or the one E2E_CONSOLE_DIR names (as the harness serves).
const distDir = process.env.E2E_CONSOLE_DIR ?? path.resolve(import.meta.dirname, '../dist');

describe('what the sign-in screen makes a browser download', () => {
  test(`its JavaScript, gzip, stays within ${LOGIN_TARGET_KB} KB, with the sign-in texts of one language and no error catalogue or screens' texts`, () => {
    const { loginKb, loginChunks } = consoleSizes(distDir);
    // The router, the query cache and the rest arrive once signed in; the error catalogue when the form is sent.
    expect(loginChunks.filter((key) => /pt\.json|errors\.(en|pt)\.json|screens\.json|router\.tsx|@tanstack|@mantine\/form/.test(key))).toEqual([]);
    expect(loginKb).toBeLessThanOrEqual(LOGIN_TARGET_KB);
  });

  test('the dashboard, where every user lands, leaves its chart, plan canvas and date picker to chunks loaded after it shows', () => {
    const { dashboard } = consoleSizes(distDir);
    expect(dashboard.chunks.some((key) => key.endsWith('features/dashboard/DashboardPage.tsx'))).toBe(true);
    expect(dashboard.chunks.filter((key) => /DailyChart|PlanDetail|CustomRangeInput|ReadOnlyCanvas|recharts|@mantine\/(charts|dates)|@xyflow/.test(key))).toEqual([]);
    // The chart library alone is about 100 KB gzip: bundled into the page, it would pass this.
    expect(dashboard.kb).toBeLessThanOrEqual(DASHBOARD_TARGET_KB);
  });
});

describe('what the plan editor makes a browser download', () => {
  test(`its route, gzip, stays within ${EDITOR_TARGET_KB} KB, without zod: the canvas draws the blocks from their zod-free descriptions`, () => {
    const { editor } = consoleSizes(distDir);
    const manifest = JSON.parse(fs.readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string }>;
    // zod's core names each of its classes ($ZodType…) in its code: no chunk of the route holds it.
    const withZod = editor.chunks.filter((key) => fs.readFileSync(path.join(distDir, manifest[key]!.file), 'utf8').includes('$ZodType'));
    expect(withZod).toEqual([]);
    expect(editor.kb).toBeLessThanOrEqual(EDITOR_TARGET_KB);
  });
});
