import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Checkpointer, startCheckpointer } from './checkpointer.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function walDatabase(): { file: string; sqlite: SQLite.Database } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-checkpointer-'));
  dirs.push(dir);
  const file = path.join(dir, 'test.db');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // The writer never checkpoints: whatever reaches the database file, the worker copied.
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { file, sqlite };
}

const insertMegabyte = (sqlite: SQLite.Database, from: number) => {
  const insert = sqlite.prepare('INSERT INTO rows (id, body) VALUES (?, ?)');
  // Many small commits, as requests make them.
  for (let i = 0; i < 256; i++) insert.run(from + i, 'x'.repeat(4000));
};

async function until(condition: () => boolean, timeoutMs = 5000, pollMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Whether a checkpoint has copied every frame of the WAL into the database file, as SQLite's
 * shared-memory index says (https://www.sqlite.org/walformat.html, "The WAL-Index Header": the
 * header's mxFrame at byte 16, the checkpoint information's nBackfill at byte 96, native byte order).
 * Then the next commit writes the WAL from its start. A fixed pause instead failed on a loaded machine.
 */
function walBackfilled(file: string): boolean {
  const index = fs.readFileSync(`${file}-shm`).subarray(0, 136);
  const maxFrame = os.endianness() === 'LE' ? index.readUInt32LE(16) : index.readUInt32BE(16);
  const backfilled = os.endianness() === 'LE' ? index.readUInt32LE(96) : index.readUInt32BE(96);
  return maxFrame > 0 && backfilled === maxFrame;
}

/** The worker's count of checkpoints once it stopped moving for 100 ms: it went to sleep. */
async function quietCount(checkpointer: Checkpointer): Promise<number> {
  let count = -1;
  await until(() => {
    const now = checkpointer.checkpoints();
    const quiet = now === count;
    count = now;
    return quiet;
  }, 5000, 100);
  return count;
}

describe('the WAL checkpointer', () => {
  it('copies committed pages into the database file while the writer never checkpoints', async () => {
    const { file, sqlite } = walDatabase();
    insertMegabyte(sqlite, 0);
    // Committed, but only in the WAL so far.
    expect(fs.statSync(file).size).toBeLessThan(100_000);
    const checkpointer = startCheckpointer(file, { intervalMs: 5 });
    try {
      await until(() => fs.statSync(file).size >= 1_000_000);
      // And it keeps up with writes made after it started, as the server tells it of them.
      insertMegabyte(sqlite, 1000);
      checkpointer.noteWrite();
      await until(() => fs.statSync(file).size >= 2_000_000);
    } finally {
      await checkpointer.close();
      sqlite.close();
    }
    // What the database file holds alone, without its WAL, is every row.
    const copy = `${file}.copy`;
    fs.copyFileSync(file, copy);
    const alone = new SQLite(copy, { readonly: true });
    expect(alone.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 512 });
    alone.close();
  });

  it('lets the WAL start over, so that it stays small under a stream of commits', async () => {
    const { file, sqlite } = walDatabase();
    const checkpointer = startCheckpointer(file, { intervalMs: 5 });
    try {
      for (let round = 0; round < 8; round++) {
        insertMegabyte(sqlite, round * 1000);
        checkpointer.noteWrite();
        // Between bursts of requests the worker catches up; the next commit then writes the WAL from its start.
        await until(() => walBackfilled(file));
      }
      // 8 MB committed: without checkpoints the WAL would hold all of it; with them it starts over most times (a
      // commit that meets a checkpoint under way carries on where the WAL ends).
      expect(fs.statSync(`${file}-wal`).size).toBeLessThan(5_000_000);
      expect(sqlite.prepare('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 2048 });
    } finally {
      await checkpointer.close();
      sqlite.close();
    }
  });

  it('sleeps while nothing is written, and wakes at the next write', async () => {
    const { file, sqlite } = walDatabase();
    const checkpointer = startCheckpointer(file, { intervalMs: 5, lingerMs: 50 });
    try {
      // At its start it copies what the WAL holds (the table's creation), then goes quiet.
      await until(() => walBackfilled(file));
      const asleep = await quietCount(checkpointer);
      // Reads alone do not wake it: a server answering reads spends nothing on checkpoints.
      for (let i = 0; i < 50; i++) sqlite.prepare('SELECT count(*) FROM rows').get();
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(checkpointer.checkpoints()).toBe(asleep);
      expect(walBackfilled(file)).toBe(true);
      // A write does, and what it committed is copied.
      insertMegabyte(sqlite, 0);
      expect(walBackfilled(file)).toBe(false);
      checkpointer.noteWrite();
      await until(() => walBackfilled(file) && fs.statSync(file).size >= 1_000_000);
      expect(checkpointer.checkpoints()).toBeGreaterThan(asleep);
    } finally {
      await checkpointer.close();
      sqlite.close();
    }
  });

  it('stops when closed, and reports a database it cannot checkpoint, once', async () => {
    const messages: string[] = [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-checkpointer-'));
    dirs.push(dir);
    // Not a database: every checkpoint fails, and says so.
    const file = path.join(dir, 'not-a-database');
    fs.writeFileSync(file, 'plain text, not SQLite'.repeat(100));
    const checkpointer = startCheckpointer(file, { intervalMs: 5, log: (message) => messages.push(message) });
    await until(() => messages.length > 0);
    // Many more attempts fail meanwhile; the log says so once.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await checkpointer.close();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/checkpoint failed: .*not a database/);
  });
});
