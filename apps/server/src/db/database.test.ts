import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from './database.ts';

describe('SQLite reads (rows made from arrays of values)', () => {
  let dir: string;
  let handle: DatabaseHandle;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-db-'));
    handle = openDatabase({ databaseUrl: undefined, dataDir: dir });
  });
  afterEach(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rowsOf = async (query: string) => (await sql.raw(query).execute(handle.db)).rows;

  it('are the objects better-sqlite3 makes, a repeated column name included', async () => {
    await rowsOf("create table t (id integer primary key, name text, data blob, score real)");
    await rowsOf("insert into t (name, data, score) values ('a', x'0102', 1.5), (null, null, null)");
    const query = 'select t.*, u.name, 7 as seven from t join t as u on u.id = t.id order by t.id';
    const direct = new SQLite(path.join(dir, 'voxplan.db'), { readonly: true });
    try {
      const expected = direct.prepare(query).all();
      // Twice: the second read comes from the statement kept by the first.
      expect(await rowsOf(query)).toEqual(expected);
      expect(await rowsOf(query)).toEqual(expected);
    } finally {
      direct.close();
    }
  });

  it('name the columns as they are after a schema change', async () => {
    await rowsOf('create table t (id integer primary key, old_name text)');
    await rowsOf("insert into t (old_name) values ('x')");
    expect(await rowsOf('select * from t')).toEqual([{ id: 1, old_name: 'x' }]);
    await rowsOf('alter table t rename column old_name to new_name');
    expect(await rowsOf('select * from t')).toEqual([{ id: 1, new_name: 'x' }]);
    await rowsOf("alter table t add column extra text default 'e'");
    expect(await rowsOf('select * from t')).toEqual([{ id: 1, new_name: 'x', extra: 'e' }]);
  });

  it('answer a column named __proto__ as better-sqlite3 does, without touching the prototype', async () => {
    const query = 'select 1 as "__proto__", 2 as b';
    const direct = new SQLite(':memory:');
    const [expected] = direct.prepare(query).all() as object[];
    direct.close();
    const [row] = (await rowsOf(query)) as object[];
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(row)).toEqual(Object.getOwnPropertyNames(expected));
  });
});

describe('SQLite transactions beside another process on the file', () => {
  it('a transaction that read first is not failed by another connection writing before its own write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-db-'));
    const handle = openDatabase({ databaseUrl: undefined, dataDir: dir });
    const other = new SQLite(path.join(dir, 'voxplan.db'));
    try {
      await sql.raw('create table t (id integer primary key, name text)').execute(handle.db);
      await sql.raw("insert into t (name) values ('a')").execute(handle.db);
      let otherWrote = true;
      await handle.db.transaction().execute(async (trx) => {
        await sql.raw('select count(*) from t').execute(trx);
        // Another process (a second instance, set-password) writes now. With a deferred `begin`
        // it would commit, and this transaction's write below would fail at once with SQLITE_BUSY;
        // with `begin immediate` this transaction holds the write lock, and the other one waits.
        try {
          other.prepare("insert into t (name) values ('other')").run();
        } catch {
          otherWrote = false;
        }
        await sql.raw("insert into t (name) values ('b')").execute(trx);
      });
      expect(otherWrote).toBe(false);
      expect((await sql.raw<{ name: string }>('select name from t order by id').execute(handle.db)).rows.map((row) => row.name)).toEqual(['a', 'b']);
    } finally {
      other.close();
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite checkpoints', () => {
  it('reach the database file while the server runs, before SQLite would checkpoint inside a commit', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-db-'));
    const handle = openDatabase({ databaseUrl: undefined, dataDir: dir });
    const file = path.join(dir, 'voxplan.db');
    try {
      await sql.raw('create table t (id integer primary key, body text)').execute(handle.db);
      // Past the second after its start in which the checkpointer copies whatever is there: the
      // commits below reach the file because their writes woke it.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      // About 250 pages in 50 commits: far below the 1,000 pages at which a commit would checkpoint.
      for (let i = 0; i < 50; i++) {
        await sql`insert into t (body) values (${'x'.repeat(20_000)})`.execute(handle.db);
      }
      const deadline = Date.now() + 5000;
      while (fs.statSync(file).size < 1_000_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(fs.statSync(file).size).toBeGreaterThanOrEqual(1_000_000);
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
