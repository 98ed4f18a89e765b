import { defineConfig } from 'vitest/config';

const apiTests = ['apps/server/test/**/*.test.ts'];

/**
 * The server's and the console's test files share their worker's modules instead of loading the
 * server's afresh per file: each file starts its own servers on its own databases, so a file keeps
 * nothing of another's but compiled modules (module-level caches are kept per database or per app
 * context for that reason). Loading them per file was 2 to 3 s a file, a third of the API suite's
 * time (docs/decisions.md). The unit tests keep their isolation: some replace modules (`vi.mock`).
 */
const sharedModules = { isolate: false };

/**
 * The API suite runs twice, once per database; unit tests of the packages run once.
 * The postgres project starts its own throwaway server (apps/server/test/postgres-global-setup.ts).
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What crosses a process or the database (another instance, a PBX, a queue's worker) arrives
    // when a busy CI machine gets to it: a poll waits that long, not vitest's one second, and still
    // fails when the thing never happens.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/src/**/*.test.{ts,tsx}', 'apps/server/src/**/*.test.ts', 'apps/console/src/**/*.test.ts', 'apps/webchat/src/**/*.test.ts', 'scripts/**/*.test.ts'] } },
      { extends: true, test: { name: 'sqlite', include: apiTests, env: { TEST_DIALECT: 'sqlite' }, ...sharedModules } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: apiTests,
          exclude: ['apps/server/test/postgres-server.test.ts'],
          env: { TEST_DIALECT: 'postgres' },
          ...sharedModules,
          globalSetup: ['apps/server/test/postgres-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['apps/console/e2e/**/*.test.ts'],
          env: { TEST_DIALECT: 'sqlite' },
          ...sharedModules,
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
