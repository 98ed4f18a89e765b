import { execFileSync } from 'node:child_process';
import path from 'node:path';

const consoleDir = path.resolve(import.meta.dirname, '..');

/**
 * How the console is built for the e2e tests: `node <args>` in `cwd` with `env`. Vitest's global
 * setup below runs it; `npm test` runs it once itself, relaying its output like its test runs', then
 * runs the console's files in several vitest processes with E2E_SKIP_BUILD.
 */
export const consoleBuild = {
  args: [path.join(consoleDir, '../../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
  cwd: consoleDir,
  // Vitest sets NODE_ENV=test, which Vite would pass on to React: a development build, 60 KB larger
  // on the sign-in route, and not the console users get.
  env: (): NodeJS.ProcessEnv => ({ ...process.env, NODE_ENV: 'production' }),
};

/** Vitest global setup: the end-to-end tests run against the console as built for production. */
export default function setup(): void {
  if (process.env.E2E_SKIP_BUILD === 'true') return;
  execFileSync(process.execPath, consoleBuild.args, { cwd: consoleBuild.cwd, stdio: 'inherit', env: consoleBuild.env() });
}
