/**
 * The server side of the API bench, run as a child of bench/api/run.ts (IPC channel required):
 *   node --import tsx bench/api/server.ts hello     bare Fastify, GET / -> {hello:'world'}
 *   node --import tsx bench/api/server.ts voxplan   the real app on BENCH_DATA_DIR (or on BENCH_DATABASE_URL, PostgreSQL), seeded
 *   node --import tsx bench/api/server.ts channels  the same, unseeded, with BENCH_PUBLIC_URL and BENCH_MASTER_KEY (bench/channels/run.ts, chat.ts)
 *   node --import tsx bench/api/server.ts floor     the API floor (floor.ts) on BENCH_DATA_DIR, seeded by the real app first, SQLite only
 *   node --import tsx bench/api/server.ts twilio-floor  the Twilio floor (floor.ts), with BENCH_PUBLIC_URL and BENCH_TWILIO_TOKEN
 *   node --import tsx bench/api/server.ts twilio-stored-floor  the Twilio call's stored floor (twilio-stored-floor.ts) on a copy of BENCH_SEED_FROM (the app's seeded database), in BENCH_DATA_DIR;
 *       with BENCH_DATABASE_URL, on that PostgreSQL database instead (a copy of the app's, twilio-stored-postgres.ts)
 *   node --import tsx bench/api/server.ts agi-floor  the FastAGI floor (floor.ts), HTTP on BENCH_HTTP_PORT (its prompts)
 *   node --import tsx bench/api/server.ts conversations-floor  the conversations floor (floor.ts) on BENCH_DATA_DIR
 * It answers the parent's commands (see protocol.ts) and exits when the parent goes away.
 */
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import path from 'node:path';
import { constants as perfConstants, performance, PerformanceObserver } from 'node:perf_hooks';
import { parseFilter, parseWhere } from '@voxplan/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { buildApp } from '../../apps/server/src/app.ts';
import { startContext, type Started } from '../../apps/server/src/bootstrap.ts';
import type { AppContext } from '../../apps/server/src/context.ts';
import { startAgiServer } from '../../apps/server/src/channels/asterisk/agi-server.ts';
import { windowProfiler } from '../lib/profiler.ts';
import { settleServer } from '../lib/settle.ts';
import { type FloorStore, startTwilioStoredFloor } from './twilio-stored-floor.ts';
import { openPostgresStore } from './twilio-stored-postgres.ts';
import { openSqliteStore } from './twilio-stored-sqlite.ts';
import { startAgiFloor, startApiFloor, startConversationsFloor, startTwilioFloor } from './floor.ts';
import { benchServerConfig } from '../lib/server-config.ts';
import { destinationsResource } from '../../apps/server/src/modules/destinations/destinations.resource.ts';
import { applyOrder, compileCondition } from '../../apps/server/src/resources/filter-sql.ts';
import {
  type Command,
  type ExplainResult,
  isCommandMessage,
  type ReadyMessage,
  type ReplyMessage,
  type ServerKind,
  serverKinds,
} from './protocol.ts';

/**
 * Statements sent to PostgreSQL by this process, each one round trip (pg sends a query only when
 * the one before it answered): what a call costs in round trips, counted where they leave.
 */
let sentStatements = 0;
const pgQuery: (...args: unknown[]) => unknown = pg.Client.prototype.query;
/** BENCH_STATEMENTS=1: between two `statements` commands that ask for it (the bench's one-call count), each statement's text goes to stderr. */
let logStatements = false;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  sentStatements++;
  if (logStatements) {
    const query = args[0];
    const text = typeof query === 'string' ? query : typeof query === 'object' && query !== null && 'text' in query ? String(query.text) : '?';
    process.stderr.write(`statement ${sentStatements}: ${text.replace(/\s+/g, ' ').slice(0, 160)}\n`);
  }
  return pgQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

/** The collector's work since start (the `gc` command): pauses of the main thread, by kind. */
const gcSeen = { minor: 0, major: 0, minorMs: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
      gcSeen.minor++;
      gcSeen.minorMs += entry.duration;
    } else {
      gcSeen.major++;
      gcSeen.majorMs += entry.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });

/** A full collection, without --expose-gc on the command line. */
const fullGc: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

const send = (message: ReadyMessage | ReplyMessage): void => {
  process.send?.(message);
};

/** Tenant plus `rows` destinations, inserted straight through ctx.db in batched transactions. */
async function seed(ctx: AppContext, rows: number): Promise<{ tenantId: number; firstId: number; lastId: number }> {
  const now = new Date().toISOString();
  const tenant = await ctx.db
    .insertInto('tenants')
    .values({ name: 'bench', created_time: now, integrations: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  const perInsert = 1000; // 7 columns x 1000 rows stays far below SQLite's bound-parameter limit
  const perTransaction = 20_000;
  for (let start = 0; start < rows; start += perTransaction) {
    const end = Math.min(rows, start + perTransaction);
    await ctx.db.transaction().execute(async (trx) => {
      for (let from = start; from < end; from += perInsert) {
        const values = [];
        for (let i = from; i < Math.min(end, from + perInsert); i++) {
          // Names are a permutation of the ids (7919 is prime to 100,000), so name order is not
          // insertion order and an ordered list cannot ride on the rowid by luck.
          const n = (i * 7919) % rows;
          values.push({
            tenant_id: tenant.id,
            created_time: now,
            updated_time: now,
            name: `dest ${String(n).padStart(6, '0')}`,
            kind: 'voice' as const,
            uri: `sip:ext${i}@pbx.example`,
            description: `bench destination ${i}`,
          });
        }
        await trx.insertInto('destinations').values(values).execute();
      }
    });
  }
  // As autovacuum would soon after such a load: without statistics PostgreSQL guesses the name
  // range holds 2 rows and reads it through a bitmap scan and a sort (2.8 ms instead of 0.1), and
  // without the visibility map a count cannot be answered from the index alone.
  if (ctx.dialect === 'postgres') await sql`vacuum analyze`.execute(ctx.db);
  const ids = await ctx.db
    .selectFrom('destinations')
    .where('tenant_id', '=', tenant.id)
    .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
    .executeTakeFirstOrThrow();
  const firstId = Number(ids.first);
  const lastId = Number(ids.last);
  // The bench picks random ids in this range: every one of them must be a seeded row.
  if (lastId - firstId + 1 !== rows) throw new Error(`seeded ids ${firstId}..${lastId} are not ${rows} in a row`);
  return { tenantId: tenant.id, firstId, lastId };
}

/** The query the destinations list or count route runs, built the way ResourceService builds it. */
function destinationsQuery(ctx: AppContext, command: Extract<Command, { cmd: 'explain' }>): CompiledQuery {
  const fields = destinationsResource.fields;
  if (command.filter !== undefined) {
    const parsed = parseFilter(command.filter, fields);
    let query = ctx.db.selectFrom('destinations').selectAll().where('tenant_id', '=', command.tenantId);
    const where = parsed.where;
    if (where) query = query.where((eb) => compileCondition(eb, where, ctx.dialect));
    const order = parsed.order.length > 0 ? parsed.order : (destinationsResource.defaultOrder ?? []);
    return applyOrder(query, order, fields)
      .limit(parsed.limit ?? 1000)
      .compile();
  }
  const where = parseWhere(command.where, fields);
  let query = ctx.db.selectFrom('destinations').where('tenant_id', '=', command.tenantId);
  if (where) query = query.where((eb) => compileCondition(eb, where, ctx.dialect));
  return query.select((eb) => eb.fn.countAll().as('count')).compile();
}

async function explain(ctx: AppContext, command: Extract<Command, { cmd: 'explain' }>): Promise<ExplainResult> {
  const compiled = destinationsQuery(ctx, command);
  const planRows = await ctx.db.executeQuery<Record<string, string>>(
    CompiledQuery.raw(`${ctx.dialect === 'postgres' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${compiled.sql}`, [...compiled.parameters]),
  );
  const times: number[] = [];
  let rows = 0;
  const deadline = performance.now() + 1500;
  for (let i = 0; i < 200 && (i < 5 || performance.now() < deadline); i++) {
    const started = performance.now();
    const result = await ctx.db.executeQuery(compiled);
    times.push(performance.now() - started);
    rows = result.rows.length;
  }
  times.sort((a, b) => a - b);
  return {
    sql: compiled.sql,
    plan: planRows.rows.map((row) => row.detail ?? row['QUERY PLAN'] ?? JSON.stringify(row)),
    medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN,
    rows,
  };
}

const quoteIdent = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return `"${name}"`;
};

async function main(): Promise<void> {
  const kind = process.argv[2] as ServerKind;
  if (!serverKinds.includes(kind as ServerKind)) throw new Error(`usage: server.ts ${serverKinds.join('|')}`);
  if (!process.send) throw new Error('server.ts runs as a child of bench/api/run.ts (needs an IPC channel)');

  let app: FastifyInstance;
  let started: Started | undefined;
  let ready: ReadyMessage;

  if (kind === 'hello') {
    app = Fastify();
    app.get('/', async () => ({ hello: 'world' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    ready = { type: 'ready', kind, port: (app.server.address() as AddressInfo).port };
  } else if (kind === 'twilio-floor') {
    const { BENCH_DATA_DIR: dataDir, BENCH_PUBLIC_URL: publicUrl, BENCH_TWILIO_TOKEN: token } = process.env;
    if (!dataDir || !publicUrl || !token) throw new Error('BENCH_DATA_DIR, BENCH_PUBLIC_URL and BENCH_TWILIO_TOKEN are required');
    app = await startTwilioFloor(path.join(dataDir, 'floor.db'), publicUrl, token);
    await app.listen({ port: 0, host: '127.0.0.1' });
    ready = { type: 'ready', kind, port: (app.server.address() as AddressInfo).port, dialect: 'sqlite' };
  } else if (kind === 'twilio-stored-floor') {
    const { BENCH_DATA_DIR: dataDir, BENCH_SEED_FROM: seedFrom, BENCH_DATABASE_URL: databaseUrl, BENCH_PUBLIC_URL: publicUrl, BENCH_TWILIO_TOKEN: token } = process.env;
    if (!publicUrl || !token) throw new Error('BENCH_PUBLIC_URL and BENCH_TWILIO_TOKEN are required');
    let store: FloorStore;
    if (databaseUrl) store = await openPostgresStore(databaseUrl);
    else {
      if (!dataDir || !seedFrom) throw new Error('BENCH_DATA_DIR and BENCH_SEED_FROM (or BENCH_DATABASE_URL) are required');
      const file = path.join(dataDir, 'floor.db');
      // A consistent copy of the app's live database: its migrations, indexes, tenant and plan.
      const source = new SQLite(seedFrom, { readonly: true });
      source.prepare('VACUUM INTO ?').run(file);
      source.close();
      store = openSqliteStore(file);
    }
    app = startTwilioStoredFloor(store, publicUrl, token);
    await app.listen({ port: 0, host: '127.0.0.1' });
    ready = { type: 'ready', kind, port: (app.server.address() as AddressInfo).port, dialect: databaseUrl ? 'postgres' : 'sqlite' };
  } else if (kind === 'conversations-floor') {
    const dataDir = process.env.BENCH_DATA_DIR;
    if (!dataDir) throw new Error('BENCH_DATA_DIR is required');
    app = startConversationsFloor(path.join(dataDir, 'floor.db'));
    await app.listen({ port: 0, host: '127.0.0.1' });
    ready = { type: 'ready', kind, port: (app.server.address() as AddressInfo).port, dialect: 'sqlite' };
  } else if (kind === 'agi-floor') {
    const dataDir = process.env.BENCH_DATA_DIR;
    const httpPort = Number(process.env.BENCH_HTTP_PORT ?? 0);
    if (!dataDir || !httpPort) throw new Error('BENCH_DATA_DIR and BENCH_HTTP_PORT are required');
    const floor = startAgiFloor(path.join(dataDir, 'floor.db'), `http://127.0.0.1:${httpPort}`);
    app = floor.app;
    app.addHook('onClose', (_instance, done) => void floor.agi.close(() => done()));
    await app.listen({ port: httpPort, host: '127.0.0.1' });
    await new Promise<void>((resolve) => floor.agi.listen(0, '127.0.0.1', resolve));
    ready = { type: 'ready', kind, port: httpPort, dialect: 'sqlite', agiPort: (floor.agi.address() as AddressInfo).port };
  } else if (kind === 'channels') {
    const dataDir = process.env.BENCH_DATA_DIR;
    const { BENCH_PUBLIC_URL: publicUrl, BENCH_MASTER_KEY: masterKey } = process.env;
    if (!dataDir || !publicUrl || !masterKey) throw new Error('BENCH_DATA_DIR, BENCH_PUBLIC_URL and BENCH_MASTER_KEY are required');
    // The settings bench/channels/chat.ts changes: the Graph API it plays, web chat limits a single load generator would hit.
    const passed = ['WHATSAPP_GRAPH_URL', 'WEBCHAT_RATE_PER_ADDRESS', 'WEBCHAT_RATE_PER_KEY', 'WEBCHAT_MAX_OPEN_PER_NUMBER', 'WEBCHAT_MAX_OPEN_PER_ADDRESS'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : []));
    // bench/channels/agi.ts: the FastAGI listener too, on a port of its own.
    const agiEnv = process.env.BENCH_AGI === '1' ? { AGI_PORT: '0' } : {};
    const config = await benchServerConfig(dataDir, process.env.BENCH_DATABASE_URL, { PUBLIC_URL: publicUrl, MASTER_KEY: masterKey, ...Object.fromEntries(passed), ...agiEnv });
    started = await startContext(config);
    app = await buildApp(started.ctx);
    // bench/channels/agi.ts's real Asterisk fetches the prompts from PUBLIC_URL: this very port.
    await app.listen({ port: Number(process.env.BENCH_HTTP_PORT ?? 0), host: config.host });
    const agi = config.agi ? await startAgiServer(started.ctx, config.agi, app.log) : undefined;
    ready = { type: 'ready', kind, port: (app.server.address() as AddressInfo).port, dialect: started.ctx.dialect, ...(agi && { agiPort: agi.port }) };
  } else {
    const dataDir = process.env.BENCH_DATA_DIR;
    if (!dataDir) throw new Error('BENCH_DATA_DIR is required');
    const rows = Number(process.env.BENCH_ROWS ?? 100_000);
    if (kind === 'floor' && process.env.BENCH_DATABASE_URL) throw new Error('the floor runs on SQLite only');
    const config = await benchServerConfig(dataDir, process.env.BENCH_DATABASE_URL);
    started = await startContext(config);
    const { dialect } = started.ctx;
    const seedStart = performance.now();
    const seeded = await seed(started.ctx, rows);
    const seedMs = performance.now() - seedStart;
    if (kind === 'floor') {
      // The same migrated and seeded database, served by the floor's own connection alone.
      await started.close();
      started = undefined;
      app = await startApiFloor(path.join(dataDir, 'voxplan.db'));
    } else {
      app = await buildApp(started.ctx);
    }
    await app.listen({ port: 0, host: config.host });
    const port = (app.server.address() as AddressInfo).port;
    ready = { type: 'ready', kind, port, dialect, ...seeded, seededRows: rows, seedMs };
  }

  const profiler = windowProfiler();
  let closing = false;
  const shutdown = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await app.close();
    await started?.close();
    process.exit(0);
  };
  process.on('disconnect', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());

  const run = async (command: Command): Promise<ReplyMessage['result']> => {
    const ctx = started?.ctx;
    switch (command.cmd) {
      case 'createIndex':
        if (!ctx) throw new Error('no database in this child');
        await sql
          .raw(
            `CREATE INDEX IF NOT EXISTS ${quoteIdent(command.name)} ON ${quoteIdent(command.table)} (${command.columns
              .map(quoteIdent)
              .join(', ')})`,
          )
          .execute(ctx.db);
        return null;
      case 'dropIndex':
        if (!ctx) throw new Error('no database in this child');
        await sql.raw(`DROP INDEX IF EXISTS ${quoteIdent(command.name)}`).execute(ctx.db);
        return null;
      case 'explain':
        if (!ctx) throw new Error('no database in this child');
        return explain(ctx, command);
      case 'profileStart':
        return profiler.start();
      case 'profileStop':
        return profiler.stop(command.file);
      case 'memory': {
        // Twice: objects with finalizers or weak references are freed by the collection after the one that found them.
        globalThis.gc?.();
        globalThis.gc?.();
        const usage = process.memoryUsage();
        return { heapUsed: usage.heapUsed, rss: usage.rss, external: usage.external, collected: globalThis.gc !== undefined };
      }
      case 'gc':
        return { ...gcSeen };
      case 'settle':
        await settleServer(ctx, fullGc);
        return null;
      case 'statements':
        if (command.log && process.env.BENCH_STATEMENTS === '1') logStatements = !logStatements;
        return ctx?.dialect === 'postgres' ? sentStatements : null;
      case 'shutdown':
        setImmediate(() => void shutdown());
        return null;
    }
  };

  process.on('message', (message: unknown) => {
    if (!isCommandMessage(message)) return;
    run(message).then(
      (result) => send({ type: 'reply', id: message.id, ok: true, result }),
      (error: unknown) => send({ type: 'reply', id: message.id, ok: false, error: String(error) }),
    );
  });

  send(ready);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
