import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { createTestDatabase, type PostgresServer, startPostgres } from '../../apps/server/test/postgres-server.ts';
import { cpuCount, type ServerChildren } from './server-child.ts';

/** The run's throwaway PostgreSQL server, once started. */
let postgresServer: PostgresServer | undefined;

export type Dialect = 'sqlite' | 'postgres';

/** BENCH_DIALECT's value checked: sqlite, postgres or both (the default). */
export function dialectsOf(setting: string | undefined): Dialect[] {
  const value = setting ?? 'both';
  if (value === 'both') return ['sqlite', 'postgres'];
  if (value === 'sqlite' || value === 'postgres') return [value];
  throw new Error('BENCH_DIALECT must be sqlite, postgres or both');
}

/**
 * The databases of a bench run: a throwaway PostgreSQL server when a dialect needs it, stopped with
 * the run's server children. `databaseUrl` answers a fresh database of it for postgres, nothing
 * (a data dir's SQLite file) for sqlite.
 */
export async function benchDatabases(servers: ServerChildren, dialects: Dialect[]): Promise<(dialect: Dialect) => Promise<string | undefined>> {
  if (!dialects.includes('postgres')) return () => Promise.resolve(undefined);
  process.stderr.write('starting a throwaway PostgreSQL server\n');
  const started = await startPostgres();
  postgresServer = started;
  servers.onStopAll(() => started.stop());
  return async (dialect) => (dialect === 'postgres' ? (await createTestDatabase(started.url)).url : undefined);
}

/**
 * A copy of the PostgreSQL database at `url` (CREATE DATABASE … TEMPLATE: its tables, indexes and
 * rows as they are), on the same server; no one may be connected to it meanwhile. Answers its URL.
 */
export async function copyDatabase(url: string, suffix: string): Promise<string> {
  const source = new URL(url);
  const name = `${source.pathname.slice(1)}_${suffix}`;
  if (!/^\w+$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${source.pathname.slice(1)}`);
  } finally {
    await client.end();
  }
  source.pathname = `/${name}`;
  return source.toString();
}

/**
 * Pins the run's PostgreSQL server, its postmaster and every process it has (the backends it
 * forks later inherit the postmaster's), to these CPUs. With the load generator's core, PostgreSQL
 * never takes the pinned Node server's: a server that waits for its core spends more CPU a request
 * (its caches cold, fewer requests a wake-up), and only on PostgreSQL would another process of the
 * figure compete for it. Nothing when no PostgreSQL server was started.
 */
export async function pinPostgres(cpus: number[] | 'all'): Promise<void> {
  if (!postgresServer) return;
  const list = cpus === 'all' ? `0-${cpuCount - 1}` : cpus.join(',');
  for (const pid of await postgresServer.pids()) {
    try {
      execFileSync('taskset', ['-p', '-c', list, String(pid)], { stdio: 'ignore' });
    } catch {
      // A process that ended meanwhile (a backend of a closed connection) has nothing to pin.
    }
  }
}
