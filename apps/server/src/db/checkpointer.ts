/**
 * SQLite's WAL checkpoints, off the serving thread.
 *
 * Left to itself, SQLite runs a checkpoint inside the commit that takes the WAL past
 * `wal_autocheckpoint` pages: that commit, and every request waiting behind it on the one thread,
 * waits for a thousand pages to be copied into the database and for two fsyncs (bench/README.md:
 * an update's p99 at 15.5 ms against a median of 4.1). Here a worker thread with a connection of
 * its own runs a passive checkpoint every few milliseconds while the server writes: it copies what
 * is committed without stopping anyone, so the commits that do reach `wal_autocheckpoint` (kept as
 * the backstop, should the worker fall behind or stop) find little left to copy.
 *
 * While nothing is written the worker sleeps on a shared counter that the serving thread moves at
 * each write (`noteWrite`). Checkpointing every 20 ms whatever happened cost an idle server, or one
 * answering only reads, about 11 ms of CPU a second (bench/README.md, "Seventh pass"): each
 * checkpoint takes the WAL's locks through system calls even when there is nothing to copy.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The slots of the state the serving thread and the worker share, Int32 each. */
const WRITES = 0;
const CLOSING = 1;
const CHECKPOINTS = 2;
/** Never written: the worker's pause between checkpoints is a wait on it that only `close` cuts short. */
const PAUSE = 3;
const SLOTS = 4;

/**
 * The worker's whole program: CommonJS, so that it can load better-sqlite3 by its resolved path.
 * It blocks on Atomics.wait rather than running an event loop: nothing else happens in it.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const [WRITES, CLOSING, CHECKPOINTS, PAUSE] = ${JSON.stringify([WRITES, CLOSING, CHECKPOINTS, PAUSE])};
const state = new Int32Array(workerData.state);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 1000');
let checkpoint;
// A failure that repeats every few milliseconds is reported once, until another or a success.
let lastError;
let seen = Atomics.load(state, WRITES);
// It starts as after a write: a WAL left by the last run, or by the migrations, is copied too.
let lastWriteAt = Date.now();
while (Atomics.load(state, CLOSING) === 0) {
  Atomics.wait(state, PAUSE, 0, workerData.intervalMs);
  if (Atomics.load(state, CLOSING) !== 0) break;
  try {
    checkpoint ??= db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    checkpoint.run();
    lastError = undefined;
  } catch (error) {
    const message = String((error && error.message) || error);
    if (message !== lastError) parentPort.postMessage({ error: message });
    lastError = message;
  }
  Atomics.add(state, CHECKPOINTS, 1);
  const writes = Atomics.load(state, WRITES);
  if (writes !== seen) {
    seen = writes;
    lastWriteAt = Date.now();
  } else if (Date.now() - lastWriteAt >= workerData.lingerMs) {
    // Quiet for a while: a commit that follows its transaction's last write has been copied too.
    Atomics.wait(state, WRITES, seen);
    seen = Atomics.load(state, WRITES);
    lastWriteAt = Date.now();
  }
}
db.close();
`;

export interface Checkpointer {
  /** Tells the worker the database was written: it checkpoints until writes have stopped for a while. */
  noteWrite(): void;
  /** Checkpoints run so far (tests). */
  checkpoints(): number;
  /** Stops the worker after its checkpoint under way, if any; the connection it holds is closed. */
  close(): Promise<void>;
}

/**
 * How long the worker keeps checkpointing after the last write it was told of: a transaction's
 * commit comes after its last write, and is copied by one of these checkpoints.
 */
const LINGER_MS = 1000;

/** Checkpoints `file`'s WAL every `intervalMs` from a worker thread, while it is being written. */
export function startCheckpointer(file: string, options: { intervalMs: number; lingerMs?: number; log?: (message: string) => void }): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const state = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver, intervalMs: options.intervalMs, lingerMs: options.lingerMs ?? LINGER_MS, state: state.buffer },
  });
  // It must not keep the process alive on its own: the database's close stops it.
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.log?.(`WAL checkpoint failed: ${message.error}`);
  });
  worker.on('error', (error) => options.log?.(`WAL checkpointer stopped: ${String(error)}`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    noteWrite() {
      Atomics.add(state, WRITES, 1);
      Atomics.notify(state, WRITES);
    },
    checkpoints: () => Atomics.load(state, CHECKPOINTS),
    close: async () => {
      // Whoever closes waits for it: nothing else may be left to keep the process alive meanwhile.
      worker.ref();
      Atomics.store(state, CLOSING, 1);
      Atomics.notify(state, WRITES);
      Atomics.notify(state, PAUSE);
      await exited;
    },
  };
}
