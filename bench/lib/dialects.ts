import { createTestDatabase, startPostgres } from '../../apps/server/test/postgres-server.ts';
import type { ServerChildren } from './server-child.ts';

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
  servers.onStopAll(() => started.stop());
  return async (dialect) => (dialect === 'postgres' ? (await createTestDatabase(started.url)).url : undefined);
}
