import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { consoleSizes, DASHBOARD_TARGET_KB, LOGIN_TARGET_KB } from '../../../bench/console/sizes.ts';

// The console as build-console.ts built it for the other e2e tests, or the one E2E_CONSOLE_DIR names (as the harness serves).
const distDir = process.env.E2E_CONSOLE_DIR ?? path.resolve(import.meta.dirname, '../dist');

describe('what the sign-in screen makes a browser download', () => {
  test(`its JavaScript, gzip, stays within ${LOGIN_TARGET_KB} KB`, () => {
    const { loginKb } = consoleSizes(distDir);
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
