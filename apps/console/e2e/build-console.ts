import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Vitest global setup: the end-to-end tests run against the console as built for production. */
export default function setup(): void {
  if (process.env.E2E_SKIP_BUILD === 'true') return;
  const consoleDir = path.resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [path.join(consoleDir, '../../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: consoleDir,
    stdio: 'inherit',
    // Vitest sets NODE_ENV=test, which Vite would pass on to React: a development build, 60 KB
    // larger on the sign-in route, and not the console users get.
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
