/**
 * The statements the server sends through `pg` without its Query (db/pg-statements.ts): a named
 * statement answers what `pg` itself answers, on its first run on a connection (parsed and
 * described) and on the runs after (neither); an error PostgreSQL answers keeps the connection;
 * the bus's ping, a bare Sync, answers only after the notifications committed before it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { runNamed, syncPing } from '../src/db/pg-statements.ts';
import { dialect } from './harness.ts';
import { createTestDatabase, type TestDatabase } from './postgres-server.ts';

describe.runIf(dialect === 'postgres')('statements sent without pg’s Query', () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase(inject('postgresUrl'));
    // One connection: every run after the first finds the statement parsed and described there.
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await pool.query(`create table things (id integer primary key, name text not null, note text, data json, seen boolean, at timestamptz)`);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const select = 'select id, name, note, data, seen, at, count(*) over () as total, 1.5::numeric as ratio, name as name from things where id >= $1 order by id';

  test('a named statement answers the rows, command and count pg answers, its first run on a connection and the next ones', async () => {
    const insert = 'insert into things (id, name, note, data, seen, at) values ($1, $2, $3, $4, $5, $6)';
    const inserted = await runNamed(pool, insert, 'test_insert', [1, 'one', null, JSON.stringify({ a: [1, 2] }), true, new Date('2026-11-30T01:02:03.456Z')]);
    expect(inserted).toMatchObject({ command: 'INSERT', rowCount: 1, rows: [] });
    const again = await runNamed(pool, insert, 'test_insert', [2, 'two', 'a note', null, false, null]);
    expect(again).toMatchObject({ command: 'INSERT', rowCount: 1, rows: [] });

    const expected = await pool.query({ text: select, values: [0] });
    for (let run = 0; run < 3; run++) {
      const answered = await runNamed(pool, select, 'test_select', [0]);
      expect(answered.command).toBe('SELECT');
      expect(answered.rowCount).toBe(2);
      expect(answered.rows).toEqual(expected.rows);
      expect(Object.keys(answered.rows[0]!)).toEqual(Object.keys(expected.rows[0] as object));
    }
    expect(expected.rows[0]).toMatchObject({ id: 1, data: { a: [1, 2] }, seen: true, total: '2', ratio: '1.5' });
    expect((expected.rows[0] as { at: Date }).at.toISOString()).toBe('2026-11-30T01:02:03.456Z');
    expect(await runNamed(pool, select, 'test_select', [3])).toMatchObject({ command: 'SELECT', rowCount: 0, rows: [] });
  });

  test('an error PostgreSQL answers fails the statement alone: the connection serves the next one', async () => {
    const insert = 'insert into things (id, name) values ($1, $2) returning id';
    const pid = async () => (await runNamed(pool, 'select pg_backend_pid() as pid', 'test_pid', [])).rows[0]!.pid;
    const before = await pid();
    await runNamed(pool, insert, 'test_insert_returning', [10, 'ten']);
    await expect(runNamed(pool, insert, 'test_insert_returning', [10, 'ten again'])).rejects.toMatchObject({ code: '23505' });
    expect(await pid()).toBe(before);
    expect((await runNamed(pool, insert, 'test_insert_returning', [11, 'eleven'])).rows).toEqual([{ id: 11 }]);
    // A value pg cannot send fails before anything runs, and nothing is written.
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(runNamed(pool, insert, 'test_insert_returning', [12, circular])).rejects.toThrow();
    expect((await pool.query('select count(*)::integer as n from things where id = 12')).rows).toEqual([{ n: 0 }]);
  });

  test('the ping answers after the notifications of every commit made before it was sent', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    try {
      await listener.query('LISTEN test_channel');
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      for (let round = 0; round < 20; round++) {
        await pool.query(`select pg_notify('test_channel', $1)`, [String(round)]);
        await syncPing(listener);
        expect(heard).toHaveLength(round + 1);
      }
      expect(heard.at(-1)).toBe('19');
    } finally {
      await listener.end();
    }
  });
});
