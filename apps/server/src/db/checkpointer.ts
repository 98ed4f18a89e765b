/**
 * SQLite's WAL checkpoints, off the serving thread.
 *
 * Left to itself, SQLite runs a checkpoint inside the commit that takes the WAL past
 * `wal_autocheckpoint` pages: that commit, and every request waiting behind it on the one thread,
 * waits for a thousand pages to be copied into the database and for two fsyncs (bench/README.md:
 * an update's p99 at 15.5 ms against a median of 4.1). Here a worker thread with a connection of
 * its own runs a passive checkpoint every few milliseconds: it copies what is committed without
 * stopping anyone, so the commits that do reach `wal_autocheckpoint` (kept as the backstop, should
 * the worker fall behind or stop) find little left to copy.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The worker's whole program: CommonJS, so that it can load better-sqlite3 by its resolved path. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 1000');
let checkpoint;
// A failure that repeats every few milliseconds is reported once, until another or a success.
let lastError;
const timer = setInterval(() => {
  try {
    checkpoint ??= db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    checkpoint.run();
    lastError = undefined;
  } catch (error) {
    const message = String((error && error.message) || error);
    if (message !== lastError) parentPort.postMessage({ error: message });
    lastError = message;
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker after its checkpoint under way, if any; the connection it holds is closed. */
  close(): Promise<void>;
}

/** Checkpoints `file`'s WAL every `intervalMs` from a worker thread. */
export function startCheckpointer(file: string, options: { intervalMs: number; log?: (message: string) => void }): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs: options.intervalMs } });
  // It must not keep the process alive on its own: the database's close stops it.
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.log?.(`WAL checkpoint failed: ${message.error}`);
  });
  worker.on('error', (error) => options.log?.(`WAL checkpointer stopped: ${String(error)}`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    close: async () => {
      // Whoever closes waits for it: nothing else may be left to keep the process alive meanwhile.
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
