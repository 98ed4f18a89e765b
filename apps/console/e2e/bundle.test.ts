import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { consoleSizes, LOGIN_TARGET_KB } from '../../../bench/console/sizes.ts';

// The console as build-console.ts built it for the other e2e tests.
const distDir = path.resolve(import.meta.dirname, '../dist');

describe('what the sign-in screen makes a browser download', () => {
  test(`its JavaScript, gzip, stays within ${LOGIN_TARGET_KB} KB`, () => {
    const { loginKb } = consoleSizes(distDir);
    expect(loginKb).toBeLessThanOrEqual(LOGIN_TARGET_KB);
  });
});
