import { defineConfig } from 'vitest/config';

const apiTests = ['apps/server/test/**/*.test.ts'];

/**
 * The API suite runs twice, once per database; unit tests of the packages run once.
 * The postgres project starts its own throwaway server (apps/server/test/postgres-global-setup.ts).
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/src/**/*.test.{ts,tsx}', 'apps/server/src/**/*.test.ts', 'apps/console/src/**/*.test.ts', 'apps/webchat/src/**/*.test.ts', 'scripts/**/*.test.ts'] } },
      { extends: true, test: { name: 'sqlite', include: apiTests, env: { TEST_DIALECT: 'sqlite' } } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: apiTests,
          exclude: ['apps/server/test/postgres-server.test.ts'],
          env: { TEST_DIALECT: 'postgres' },
          globalSetup: ['apps/server/test/postgres-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['apps/console/e2e/**/*.test.ts'],
          env: { TEST_DIALECT: 'sqlite' },
          globalSetup: ['apps/console/e2e/build-console.ts'],
          // One browser at a time: the machine has two cores, and other projects run beside it.
          fileParallelism: false,
          testTimeout: 120_000,
          expect: { poll: { timeout: 15_000, interval: 100 } },
        },
      },
    ],
  },
});
