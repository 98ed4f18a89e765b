/**
 * What the two reports benches (dashboard.ts, reports.ts) share: requests timed one at a time
 * against a hello-world baseline, and a server child on a database seeded with reports.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { startContext } from '../../apps/server/src/bootstrap.ts';
import { apiCall } from '../lib/api-call.ts';
import { type Dialect, dialectsOf } from '../lib/dialects.ts';
import { envNumber } from '../lib/env.ts';
import { fmt, percentile } from '../lib/load.ts';
import { canPin, type ServerChild, type ServerChildren } from '../lib/server-child.ts';
import { BENCH_ADMIN, benchServerConfig } from '../lib/server-config.ts';
import { type SeededReports, seedReports } from './seed.ts';

/** The server child script both benches start (bench/api/server.ts). */
export const serverScript = path.join(import.meta.dirname, '../api/server.ts');

/**
 * The settings both benches read from the environment (their headers list them); `requests` and
 * `warmup` are each bench's defaults. `pinning`: the client and the server on a core each.
 */
export function reportsBenchSettings(defaults: { requests: number; warmup: number }) {
  const pin = process.env.BENCH_PIN !== '0';
  return {
    dialects: dialectsOf(process.env.BENCH_DIALECT),
    reports: { postgres: envNumber('BENCH_REPORTS_POSTGRES', 1_000_000), sqlite: envNumber('BENCH_REPORTS_SQLITE', 100_000) } satisfies Record<Dialect, number>,
    requests: Math.max(1, envNumber('BENCH_REQUESTS', defaults.requests)),
    warmup: defaults.warmup,
    pinning: pin && canPin(),
    strict: process.env.BENCH_STRICT === '1',
  };
}

export interface Timing {
  median: number;
  p95: number;
  /** Server CPU (user + system, /proc) per request, ms. */
  cpuMs: number;
}

/**
 * `count` GETs one after another after `warmup` more, each read to its end by `read`; answers the
 * timings and the last read. `url` may differ per request (`n`: the request's number).
 */
export async function timeGets<T>(
  server: ServerChild,
  url: string | ((n: number) => string),
  headers: Record<string, string>,
  options: { count: number; warmup: number; read: (response: Response) => Promise<T> },
): Promise<Timing & { last: T }> {
  let last!: T;
  let n = 0;
  const get = async () => {
    const target = typeof url === 'string' ? url : url(n++);
    const response = await fetch(`${server.url}${target}`, { headers });
    if (!response.ok) throw new Error(`GET ${target}: ${response.status} ${await response.text()}`);
    last = await options.read(response);
  };
  for (let i = 0; i < options.warmup; i++) await get();
  const latencies = new Float64Array(options.count);
  const cpuBefore = server.cpuSeconds() ?? Number.NaN;
  for (let i = 0; i < options.count; i++) {
    const started = performance.now();
    await get();
    latencies[i] = performance.now() - started;
  }
  const cpuMs = (((server.cpuSeconds() ?? Number.NaN) - cpuBefore) / options.count) * 1000;
  latencies.sort();
  return { median: percentile(latencies, 50), p95: percentile(latencies, 95), cpuMs, last };
}

export const readJson = (response: Response): Promise<unknown> => response.json();

/** The hello-world GET's timings: the baseline every row's ratio is to, measured in the same run. */
export async function helloBaseline(servers: ServerChildren, serverCpu: number | undefined, count: number, warmup: number): Promise<Timing> {
  const hello = await servers.start('hello', {}, serverCpu);
  try {
    return await timeGets(hello, '/', {}, { count, warmup, read: readJson });
  } finally {
    await servers.stop(hello);
  }
}

export interface SeededServer {
  app: ServerChild;
  seeded: SeededReports;
  /** The administrator's access token. */
  token: string;
  /** "sqlite: 100,000 reports in 3.1 s, their rollups … in 0.4 s". */
  seedLine: string;
}

/** `count` reports seeded on a fresh database of `dialect` (seed.ts), then the real server on it in a child process. */
export async function startSeededServer(
  servers: ServerChildren,
  dialect: Dialect,
  options: { count: number; dataDir: string; databaseUrl: string | undefined; serverCpu: number | undefined },
): Promise<SeededServer> {
  const { count, dataDir, databaseUrl } = options;
  fs.mkdirSync(dataDir, { recursive: true });
  const masterKey = randomBytes(32).toString('hex');
  process.stderr.write(`seeding ${count.toLocaleString('en')} reports on ${dialect}\n`);
  const started = await startContext(await benchServerConfig(dataDir, databaseUrl, { MASTER_KEY: masterKey }));
  let seeded: SeededReports;
  try {
    seeded = await seedReports(started.ctx, count, (line) => process.stderr.write(`${line}\n`));
    // A table that grew over months has been vacuumed by autovacuum; one loaded in a minute has
    // not, and its counts would read every row for its visibility instead of the index alone.
    if (dialect === 'postgres') await sql.raw('vacuum analyze call_reports').execute(started.ctx.db);
  } finally {
    await started.close();
  }
  const app = await servers.start(
    'channels',
    {
      BENCH_DATA_DIR: path.resolve(dataDir),
      BENCH_PUBLIC_URL: 'http://bench.invalid',
      BENCH_MASTER_KEY: masterKey,
      ...(databaseUrl !== undefined && { BENCH_DATABASE_URL: databaseUrl }),
    },
    options.serverCpu,
  );
  const { token } = (await apiCall(app, 'POST', '/login', null, BENCH_ADMIN)) as { token: string };
  const seedLine = `${dialect}: ${count.toLocaleString('en')} reports in ${fmt(seeded.reportsMs / 1000, 1)} s, their rollups (rebuildStatsRollups) in ${fmt(seeded.rollupsMs / 1000, 1)} s`;
  return { app, seeded, token, seedLine };
}
