import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';

const consoleDir = path.resolve(import.meta.dirname, '..');
const viteBuild = [path.join(consoleDir, '../../node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'];
// Vitest sets NODE_ENV=test, which Vite would pass on to React: a development build, 60 KB larger on
// the sign-in route, and not the console users get.
const buildEnv = () => ({ ...process.env, NODE_ENV: 'production' });

/** Vitest global setup: the end-to-end tests run against the console as built for production. */
export default function setup(): void {
  if (process.env.E2E_SKIP_BUILD === 'true') return;
  execFileSync(process.execPath, viteBuild, { cwd: consoleDir, stdio: 'inherit', env: buildEnv() });
}

/**
 * The same build without blocking the caller's event loop: `npm test` builds once, then runs the
 * console's files in several vitest processes with E2E_SKIP_BUILD, while it relays the other
 * lane's output.
 */
export function buildConsole(onLine: (line: string) => void): Promise<number> {
  const child = spawn(process.execPath, viteBuild, { cwd: consoleDir, env: buildEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach(onLine));
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}
