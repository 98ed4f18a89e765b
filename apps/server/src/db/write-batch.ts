import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectName } from './database.ts';
import { executeCompiled } from './prepared.ts';
import type { Database } from './schema.ts';

/** Runs short units of database work, each all or nothing. */
export interface TransactionRunner {
  /**
   * Runs `work` atomically: everything it wrote is stored, or nothing is. The promise settles once
   * that is durable. `work` must only use the database: on SQLite it may share its transaction
   * with others, which wait for it.
   */
  run<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs a unit of ONE statement: on SQLite as `run` does (it shares the batch's commit); on
   * PostgreSQL the statement is its own transaction, without the round trips of `begin` and `commit`.
   */
  runStatement<T>(statement: (db: Kysely<Database>) => Promise<T>): Promise<T>;
}

interface Pending {
  work: (trx: Kysely<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const SAVEPOINT = CompiledQuery.raw('savepoint batched_work');
const RELEASE = CompiledQuery.raw('release batched_work');
const ROLLBACK_TO = CompiledQuery.raw('rollback to batched_work');

/**
 * Group commit on SQLite. A commit is most of what a session's turn costs the database (the WAL
 * pages it writes), and SQLite writes one transaction at a time anyway. So units of work asked
 * for in the same pass of the event loop run in one transaction, each inside a savepoint of its
 * own: one that fails is rolled back alone and rejects alone, and the pages they share are written
 * once. None of them is answered before the commit. On PostgreSQL, which commits on many
 * connections at once, each unit is a transaction of its own.
 */
export function createTransactionRunner(db: Kysely<Database>, dialect: DialectName): TransactionRunner {
  if (dialect !== 'sqlite') return { run: (work) => db.transaction().execute(work), runStatement: (statement) => statement(db) };

  let pending: Pending[] = [];

  async function runBatch(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      await db.transaction().execute(only.work).then(only.resolve, only.reject);
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const unit of batch) {
          await executeCompiled(trx, SAVEPOINT);
          try {
            const value = await unit.work(trx);
            await executeCompiled(trx, RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await executeCompiled(trx, ROLLBACK_TO);
            await executeCompiled(trx, RELEASE);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit failed: nothing of the batch is stored.
      for (const unit of batch) unit.reject(error);
      return;
    }
    batch.forEach((unit, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  function run<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (pending.length === 0) {
        setImmediate(() => {
          const batch = pending;
          pending = [];
          void runBatch(batch);
        });
      }
      pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }
  return { run, runStatement: run };
}

const sharedRunners = new WeakMap<Kysely<Database>, TransactionRunner>();

/**
 * The runner of this database that the generic resources' writes share: creates, updates and
 * removals that arrive together commit together (each in its own savepoint), as turns do.
 */
export function sharedTransactionRunner(db: Kysely<Database>, dialect: DialectName): TransactionRunner {
  let runner = sharedRunners.get(db);
  if (!runner) {
    runner = createTransactionRunner(db, dialect);
    sharedRunners.set(db, runner);
  }
  return runner;
}
