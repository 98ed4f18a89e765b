import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type LogEvent, PostgresDialect, sql, SqliteDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { createLocalBus, createPostgresBus, type InstanceBus } from './instance-bus.ts';
import { UNNOTIFIED_TABLES } from './write-notifications.ts';
import { type AvailabilityLog, createDatabaseAvailability, type DatabaseAvailability } from './availability.ts';
import { startCheckpointer } from './checkpointer.ts';
import { runNamed } from './pg-statements.ts';
import { type DirectRunner, registerDirectRunner, registerNamedRunner } from './prepared.ts';
import { createReadCache, type ReadCache, tableWrittenBy, WriteTracker } from './read-cache.ts';
import type { Database } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  readCache: ReadCache;
  /** What the instances on this database tell each other (instance-bus.ts). */
  bus: InstanceBus;
  /** Resolves once the bus listens (PostgreSQL), or its first attempt failed and it keeps trying. */
  ready: Promise<void>;
  /** PostgreSQL's pool now (GET /metrics); absent on SQLite. */
  poolStats?: () => { total: number; idle: number; waiting: number };
  /** Whether the database answers, as the queries find it (availability.ts). */
  availability: DatabaseAvailability;
  close(): Promise<void>;
}

/** A silent monitor's log: tools and tests that pass none. */
const quietLog: AvailabilityLog = { error: () => {}, info: () => {} };

/** The monitor of `db`, told of every failed query through Kysely's log hook. */
function watchAvailability(log: AvailabilityLog | undefined): { availability: DatabaseAvailability; kyselyLog: (event: LogEvent) => void; watch: (db: Kysely<Database>) => void } {
  let database: Kysely<Database> | undefined;
  const availability = createDatabaseAvailability({ probe: () => sql`select 1`.execute(database!), log: log ?? quietLog });
  return {
    availability,
    kyselyLog: (event) => {
      if (event.level === 'error') availability.noteFailure(event.error);
    },
    watch: (db) => {
      database = db;
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;

/** What Kysely's SQLite dialect asks of a statement: better-sqlite3's, or one that tracks its writes. */
type Statement = Pick<SQLite.Statement, 'reader' | 'all' | 'run' | 'iterate'>;

/** A statement that tells the tracker, each time it runs, which table it wrote. */
class TrackedStatement implements Statement {
  readonly reader: boolean;

  constructor(
    private readonly statement: SQLite.Statement,
    private readonly table: string | undefined,
    private readonly tracker: WriteTracker,
  ) {
    this.reader = statement.reader;
  }

  all(...parameters: unknown[]): unknown[] {
    try {
      return this.statement.all(...parameters);
    } finally {
      this.tracker.noteWrite(this.table);
    }
  }

  run(...parameters: unknown[]): SQLite.RunResult {
    try {
      return this.statement.run(...parameters);
    } finally {
      this.tracker.noteWrite(this.table);
    }
  }

  iterate(...parameters: unknown[]): IterableIterator<unknown> {
    try {
      return this.statement.iterate(...parameters);
    } finally {
      this.tracker.noteWrite(this.table);
    }
  }
}

const columnNames = (statement: SQLite.Statement): string[] => statement.columns().map((column) => column.name);

/**
 * A read whose rows are made in JavaScript from better-sqlite3's arrays of values. better-sqlite3
 * makes a row object through V8's API one property at a time, which for a page of 25 rows of
 * destinations cost 62 µs against 44 µs this way (bench/README.md). The objects are the same: the
 * columns in order, the last of two with one name winning.
 */
export class ReadStatement implements Statement {
  readonly reader = true;
  private names: string[];

  constructor(private readonly statement: SQLite.Statement) {
    this.names = columnNames(statement);
    statement.raw(true);
  }

  /** A column named so would set the object's prototype instead: such a read keeps better-sqlite3's objects. */
  static suits(statement: SQLite.Statement): boolean {
    return statement.reader && !columnNames(statement).includes('__proto__');
  }

  private toObject(values: unknown[]): Record<string, unknown> {
    // A schema change by another connection makes SQLite prepare the statement again, with the columns as they are now.
    if (values.length !== this.names.length) this.names = columnNames(this.statement);
    const { names } = this;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) row[names[i]!] = values[i];
    return row;
  }

  all(...parameters: unknown[]): unknown[] {
    const rows = this.statement.all(...parameters) as unknown[][];
    const objects = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) objects[i] = this.toObject(rows[i]!);
    return objects;
  }

  run(...parameters: unknown[]): SQLite.RunResult {
    return this.statement.run(...parameters);
  }

  *iterate(...parameters: unknown[]): IterableIterator<unknown> {
    for (const values of this.statement.iterate(...parameters) as IterableIterator<unknown[]>) yield this.toObject(values);
  }
}

const SCHEMA_CHANGE = /^\s*(?:create|alter|drop)\b/i;

/**
 * Kysely prepares every query anew; with better-sqlite3 preparing costs several times more than
 * running. Queries are built from a fixed set of shapes with bound values, so a cache keyed by
 * the SQL text stays small; it is bounded all the same, oldest out first. Statements that write
 * report to the tracker, for the read cache. Plain objects rather than proxies of better-sqlite3's:
 * every query of every request goes through here.
 */
function withStatementCache(sqlite: SQLite.Database, tracker: WriteTracker): SqliteDatabase {
  const cache = new Map<string, Statement>();
  return {
    close: () => sqlite.close(),
    prepare(source: string) {
      // Reads prepared before a schema change would keep the columns they had; a schema change is
      // rare (migrations), so it is prepared anew each time and not kept.
      if (SCHEMA_CHANGE.test(source)) {
        cache.clear();
        return new TrackedStatement(sqlite.prepare(source), undefined, tracker);
      }
      let statement = cache.get(source);
      if (statement) return statement;
      const written = tableWrittenBy(source);
      // Kysely begins a transaction with a deferred `begin`, which takes the write lock at the first
      // write. With another process on the file (a second instance, `npm run set-password`), a
      // transaction that read first then fails that upgrade at once with SQLITE_BUSY, without
      // waiting for busy_timeout; `begin immediate` waits for the lock at the start instead.
      const prepared = sqlite.prepare(source === 'begin' ? 'begin immediate' : source);
      if (written !== null) statement = new TrackedStatement(prepared, written, tracker);
      else statement = ReadStatement.suits(prepared) ? new ReadStatement(prepared) : prepared;
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
      return statement;
    },
  };
}

/** How often the worker checkpoints while the server writes: at 10 MB of WAL a second (a bench's load), some 50 pages each time. */
const CHECKPOINT_INTERVAL_MS = 20;
/** SQLite's own default is 1,000 pages; the worker keeps the WAL well below this. */
const BACKSTOP_CHECKPOINT_PAGES = 4000;

/** Whether DATABASE_URL names PostgreSQL; else the database is a SQLite file (sqliteFileOf). */
export const isPostgresUrl = (databaseUrl: string | undefined): databaseUrl is string => databaseUrl !== undefined && /^postgres(ql)?:/.test(databaseUrl);

/** The SQLite file the server uses: DATABASE_URL's `sqlite:` path, else DATA_DIR/voxplan.db. */
export function sqliteFileOf(options: { databaseUrl: string | undefined; dataDir: string }): string {
  return options.databaseUrl ? options.databaseUrl.replace(/^(sqlite|file):(\/\/)?/, '') : path.join(options.dataDir, 'voxplan.db');
}

/**
 * A connection whose query ran past the client's query_timeout is closed, not reused. pg answers
 * the timed-out query at once but leaves it on the wire (pg/lib/client.js: only a query not yet
 * sent is taken off the queue): on a paused server every query after it on that connection would
 * wait behind it, and Kysely returns a connection to the pool without the error that would make
 * pg-pool drop it. end() on a client with a query in flight destroys its socket and marks it
 * ending, which pg-pool checks when the connection comes back.
 */
class BoundedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A server that terminates a connection checked out between two queries (a transaction's, on a
    // restart) makes pg emit 'error' with nobody listening: pg-pool listens only while it is idle,
    // and an unheard 'error' ends the process. The client is unusable from then on and pg-pool
    // drops it when it comes back; the query that uses it next fails, and is answered 503.
    this.on('error', () => {});
  }

  // pg's query() has many overloads; this one passes every call through unchanged.
  override query(...args: unknown[]): never {
    const result = (super.query as (...rest: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') void this.end().catch(() => {});
      });
    }
    return result as never;
  }
}

/** Bounds on the waits for PostgreSQL (config.ts): unset, none (tools, and the migrations' own connection). */
export interface PoolBounds {
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/** The client's query_timeout is a little past the server's statement_timeout: a running server cancels the statement itself, and the connection stays usable. */
const CLIENT_TIMEOUT_MARGIN_MS = 500;

function poolOptions(connectionString: string, bounds: PoolBounds | undefined, max: number): pg.PoolConfig {
  if (!bounds) return { connectionString, max, Client: BoundedClient };
  return {
    connectionString,
    max,
    Client: BoundedClient,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    statement_timeout: bounds.queryTimeoutMs,
    query_timeout: bounds.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
  };
}

/**
 * Runs `work` (the migrations) on a connection without the bounds: a migration on a large table
 * may rightly take longer than a request's statement. SQLite has no bounds: `db` itself.
 */
export async function withUnboundedDatabase<T>(handle: Pick<DatabaseHandle, 'db' | 'dialect'>, databaseUrl: string | undefined, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (handle.dialect !== 'postgres' || !isPostgresUrl(databaseUrl)) return work(handle.db);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool(poolOptions(databaseUrl, undefined, 1)) }) });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

export function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL's connect and statement bounds (config.database); unset, none. */
  bounds?: PoolBounds;
  onPoolError?: (error: Error) => void;
  log?: (message: string) => void;
  /** Where the lines "database unavailable" and "database is back after N s" go. */
  availabilityLog?: AvailabilityLog;
}): DatabaseHandle {
  const watcher = watchAvailability(options.availabilityLog);
  if (isPostgresUrl(options.databaseUrl)) {
    const pool = new pg.Pool(poolOptions(options.databaseUrl, options.bounds, 10));
    // An idle connection dropped by the server (restart, failover) must not take the process down;
    // the pool replaces it on the next query.
    pool.on('error', (error) => {
      options.onPoolError?.(error);
      watcher.availability.noteFailure(error);
    });
    // Kysely's log hook sees failed queries, not a connection that could not be had: the monitor sees those here.
    const watchedPool = {
      connect: () =>
        pool.connect().catch((error: unknown) => {
          watcher.availability.noteFailure(error);
          throw error;
        }),
      end: () => pool.end(),
    };
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: watchedPool }), log: watcher.kyselyLog });
    watcher.watch(db);
    // What Kysely's PostgreSQL driver does with a query, as a named statement (prepared.ts), described once a connection (pg-statements.ts).
    registerNamedRunner(db, async ({ sql: text, parameters }, name) => {
      const result = await runNamed(pool, text, name, [...parameters]).catch((error: unknown) => {
        watcher.availability.noteFailure(error);
        throw error;
      });
      // Kysely's driver counts the rows of these commands only.
      const counted = result.command === 'INSERT' || result.command === 'UPDATE' || result.command === 'DELETE' || result.command === 'MERGE';
      return { rows: result.rows, ...(counted && result.rowCount !== null && { numAffectedRows: BigInt(result.rowCount) }) };
    });
    // Writes are learnt from the bus alone, this instance's own included: they count once
    // committed, which a statement seen going out cannot tell.
    const tracker = new WriteTracker(UNNOTIFIED_TABLES);
    const bus = createPostgresBus({
      connectionString: options.databaseUrl,
      pool,
      onWrite: (table) => tracker.noteWrite(table),
      onGap: () => {
        readCache.clear();
        tracker.noteWrite(undefined);
      },
      ...(options.log && { log: options.log }),
    });
    const readCache = createReadCache(tracker, () => 0, bus.caughtUp);
    const close = async () => {
      watcher.availability.close();
      await bus.close();
      await db.destroy();
    };
    const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db, dialect: 'postgres', readCache, bus, ready: bus.ready, close, poolStats, availability: watcher.availability };
  }
  const file = sqliteFileOf(options);
  if (!options.databaseUrl) fs.mkdirSync(options.dataDir, { recursive: true });
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
  const statements = withStatementCache(sqlite, tracker);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }), log: watcher.kyselyLog });
  watcher.watch(db);
  // What Kysely's SQLite connection does with a query, without its promises and lock (prepared.ts).
  const runDirectly: DirectRunner = ({ sql, parameters }) => {
    const statement = statements.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
  registerDirectRunner(db, runDirectly);
  // A prepared query outside a transaction: at once while the connection has no transaction open
  // (a synchronous call cannot land inside one that opens later), else through Kysely, whose lock
  // holds it until that transaction ends, so it never reads another's uncommitted writes. Kysely's
  // executor and lock were some 8 µs a query: a call's turns read their session this way (issue 40).
  registerNamedRunner(db, (query) => {
    if (sqlite.inTransaction) return db.executeQuery(query);
    try {
      return Promise.resolve(runDirectly(query));
    } catch (error) {
      // As Kysely's log would have told it.
      watcher.availability.noteFailure(error);
      return Promise.reject(error as Error);
    }
  });
  // Checkpoints off the serving thread (checkpointer.ts); a commit checkpoints itself only if the
  // worker falls this far behind. An in-memory database has no WAL.
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(file, { intervalMs: CHECKPOINT_INTERVAL_MS, ...(options.log && { log: options.log }) });
  if (checkpointer) {
    sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
    // Every write of this connection goes through the tracker; the worker sleeps while there are none.
    tracker.listen(() => checkpointer.noteWrite());
  }
  const close = async () => {
    watcher.availability.close();
    await checkpointer?.close();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', readCache, bus: createLocalBus(options.log), ready: Promise.resolve(), close, availability: watcher.availability };
}
