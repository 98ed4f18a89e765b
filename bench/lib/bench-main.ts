import type { ServerChildren } from './server-child.ts';

/** What a bench found besides its figures: wrong answers or failed requests (the figures mean nothing), targets missed. */
export interface BenchOutcome {
  failures: string[];
  targetFailures: number;
  /** Missed targets make the exit code 3. */
  strict: boolean;
}

/**
 * Runs a bench's `main` and exits: 1 on an error, failed requests or wrong answers (with a banner
 * that says the figures are meaningless), 3 on a missed target when strict, 130 on Ctrl-C; the
 * server children and what they leave behind are stopped in every case.
 */
export async function runBench(servers: ServerChildren, main: () => Promise<void>, outcome: () => BenchOutcome): Promise<never> {
  let exitCode = 0;
  process.on('SIGINT', () => {
    void servers.stopAll().finally(() => process.exit(130));
  });
  try {
    await main();
    const { failures, targetFailures, strict } = outcome();
    if (failures.length > 0) {
      process.stdout.write(`\n!!!!!!!! FAILED REQUESTS OR WRONG ANSWERS — THE NUMBERS ABOVE ARE MEANINGLESS !!!!!!!!\n${failures.map((w) => `  ${w}`).join('\n')}\n`);
      exitCode = 1;
    } else if (targetFailures > 0) {
      process.stdout.write(`\n${targetFailures} target(s) missed (marked FAIL above).\n`);
      if (strict) exitCode = 3;
    }
  } catch (error) {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitCode = 1;
  } finally {
    await servers.stopAll();
  }
  process.exit(exitCode);
}
