import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { createReadCache, passThroughReadCache, type ReadCache, tableWrittenBy, WriteTracker } from './read-cache.ts';
import type { Database } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  readCache: ReadCache;
  close(): Promise<void>;
}

const STATEMENT_CACHE_SIZE = 500;

const RUNNERS = new Set<PropertyKey>(['run', 'all', 'get', 'iterate']);

/** A statement that tells the tracker, each time it runs, which table it wrote. */
function trackWrites(statement: SQLite.Statement, table: string | undefined, tracker: WriteTracker): SQLite.Statement {
  return new Proxy(statement, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (!RUNNERS.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        } finally {
          tracker.noteWrite(table);
        }
      };
    },
  });
}

/**
 * Kysely prepares every query anew; with better-sqlite3 preparing costs several times more than
 * running. Queries are built from a fixed set of shapes with bound values, so a cache keyed by
 * the SQL text stays small; it is bounded all the same, oldest out first. Statements that write
 * report to the tracker, for the read cache.
 */
function withStatementCache(sqlite: SQLite.Database, tracker: WriteTracker): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver) as unknown;
      return (source: string) => {
        let statement = cache.get(source);
        if (statement) return statement;
        const written = tableWrittenBy(source);
        statement = written === null ? prepare(source) : trackWrites(prepare(source), written, tracker);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(source, statement);
        return statement;
      };
    },
  });
}

export function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  onPoolError?: (error: Error) => void;
}): DatabaseHandle {
  if (options.databaseUrl && /^postgres(ql)?:/.test(options.databaseUrl)) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not take the process down;
    // the pool replaces it on the next query.
    pool.on('error', (error) => options.onPoolError?.(error));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', readCache: passThroughReadCache, close: () => db.destroy() };
  }
  let file: string;
  if (options.databaseUrl) {
    file = options.databaseUrl.replace(/^(sqlite|file):(\/\/)?/, '');
  } else {
    fs.mkdirSync(options.dataDir, { recursive: true });
    file = path.join(options.dataDir, 'voxplan.db');
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const tracker = new WriteTracker();
  // Changes when another connection (another process on the same file) commits. Asking costs a
  // look at the shared WAL index, a fifth of a cached call, so the answer is reused for a
  // millisecond: another process's write is seen at most that late.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  let version = 0;
  let versionCheckedAt = -Infinity;
  const externalVersion = () => {
    const now = performance.now();
    if (now - versionCheckedAt >= 1) {
      version = dataVersion.get() as number;
      versionCheckedAt = now;
    }
    return version;
  };
  const readCache = createReadCache(tracker, externalVersion);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, tracker) }) });
  return { db, dialect: 'sqlite', readCache, close: () => db.destroy() };
}
