/**
 * Takes the database of every server in this process away, as an outage does, until the returned
 * function brings it back: on PostgreSQL a connection cannot be had (ECONNREFUSED, as from a
 * stopped server), on SQLite every statement finds the file locked past its busy timeout
 * (SQLITE_BUSY). Both are what db/unavailable.ts classifies as the database being away. Faked at
 * the driver, under Kysely and the prepared queries' own runners, so that no query slips past.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { DialectName } from '../src/db/database.ts';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

/** Defines `name` on `target` as `replacement` and gives back what restores it. */
function patch(target: object, name: string, replacement: unknown): () => void {
  const own = Object.getOwnPropertyDescriptor(target, name);
  Object.defineProperty(target, name, { value: replacement, configurable: true, writable: true });
  return () => {
    if (own) Object.defineProperty(target, name, own);
    else Reflect.deleteProperty(target, name);
  };
}

export function takeDatabaseAway(dialect: DialectName): () => void {
  if (dialect === 'postgres') {
    // pg-pool's connect: Kysely's driver awaits it, pool.query (the named statements) passes a callback.
    const restore = patch(pg.Pool.prototype, 'connect', function connect(callback?: (error: Error) => void) {
      if (typeof callback === 'function') {
        setImmediate(() => callback(refused()));
        return undefined;
      }
      return Promise.reject(refused());
    });
    return restore;
  }
  const probe = new SQLite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as object;
  probe.close();
  const restores = ['run', 'get', 'all', 'iterate'].map((name) =>
    patch(statement, name, () => {
      throw busy();
    }),
  );
  return () => {
    for (const restore of restores) restore();
  };
}
