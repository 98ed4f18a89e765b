import { describe, expect, it } from 'vitest';
import { createReadCache, tableWrittenBy, WriteTracker } from './read-cache.ts';

describe('tableWrittenBy', () => {
  it('names the table of the statements Kysely writes', () => {
    expect(tableWrittenBy('insert into "destinations" ("name") values (?) returning *')).toBe('destinations');
    expect(tableWrittenBy('update "user_roles" set "role" = ? where "id" = ?')).toBe('user_roles');
    expect(tableWrittenBy('delete from "acl" where "id" in (?, ?)')).toBe('acl');
    expect(tableWrittenBy('insert or replace into settings values (?)')).toBe('settings');
  });

  it('counts reads and transaction boundaries as no write, and anything else as a write to every table', () => {
    for (const sql of ['select * from "users"', 'begin', 'commit', 'savepoint "sp1"', 'release "sp1"']) expect(tableWrittenBy(sql)).toBeNull();
    for (const sql of ['rollback', 'rollback to "sp1"', 'create table "x" (id integer)', 'drop index "ix"']) expect(tableWrittenBy(sql)).toBeUndefined();
  });
});

/** Asks `count` keys twice each, so that the cache keeps their answers. */
async function keepAnswers(read: (key: string, tables: string[]) => Promise<number>, prefix: string, count: number, table: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    await read(`${prefix} ${i}`, [table]);
    await read(`${prefix} ${i}`, [table]);
  }
}

describe('createReadCache', () => {
  const setUp = () => {
    const tracker = new WriteTracker();
    let externalVersion = 1;
    let loads = 0;
    const cache = createReadCache(tracker, () => externalVersion);
    const read = (key: string, tables: string[]) => cache.read(key, tables, async () => ++loads);
    return { tracker, read, bumpExternal: () => externalVersion++, loads: () => loads };
  };

  it('answers again from the cache until a table read is written', async () => {
    const { tracker, read } = setUp();
    expect(await read('a', ['users', 'user_roles'])).toBe(1);
    expect(await read('a', ['users', 'user_roles'])).toBe(2);
    expect(await read('a', ['users', 'user_roles'])).toBe(2);
    tracker.noteWrite('destinations');
    expect(await read('a', ['users', 'user_roles'])).toBe(2);
    tracker.noteWrite('user_roles');
    expect(await read('a', ['users', 'user_roles'])).toBe(3);
    expect(await read('a', ['users', 'user_roles'])).toBe(3);
  });

  it('keeps an answer from the second time its key is asked for, not the first', async () => {
    const { read, loads } = setUp();
    for (let i = 0; i < 100; i++) await read(`once ${i}`, ['destinations']);
    expect(loads()).toBe(100);
    expect(await read('once 7', ['destinations'])).toBe(101);
    expect(await read('once 7', ['destinations'])).toBe(101);
    expect(await read('once 8', ['destinations'])).toBe(102);
  });

  it('once full, keeps a new answer only from its third ask, so that reads of random records do not churn it', async () => {
    const { read, loads } = setUp();
    // 2,000 answers kept, each asked twice: the cache is full.
    await keepAnswers(read, 'kept', 2000, 'destinations');
    expect(loads()).toBe(4000);
    // A key asked twice now is loaded both times, and pushes out no kept answer.
    expect(await read('random', ['destinations'])).toBe(4001);
    expect(await read('random', ['destinations'])).toBe(4002);
    expect(await read('kept 0', ['destinations'])).toBe(2);
    // Asked a third time, it is kept, and the oldest answer goes.
    expect(await read('random', ['destinations'])).toBe(4003);
    expect(await read('random', ['destinations'])).toBe(4003);
    expect(await read('kept 1', ['destinations'])).toBe(4);
    expect(await read('kept 0', ['destinations'])).toBe(4004);
  });

  it('keeps an answer that went stale again in its place, pushing out no other', async () => {
    const { tracker, read } = setUp();
    await keepAnswers(read, 'user', 1999, 'users');
    await read('destination', ['destinations']);
    expect(await read('destination', ['destinations'])).toBe(4000);
    tracker.noteWrite('destinations');
    // Loaded again and kept again, in a full cache: the oldest answer, of another table, stays.
    expect(await read('destination', ['destinations'])).toBe(4001);
    expect(await read('destination', ['destinations'])).toBe(4001);
    expect(await read('user 0', ['users'])).toBe(2);
  });

  it('drops everything on an unattributed write or a write by another process', async () => {
    const { tracker, read, bumpExternal } = setUp();
    await read('a', ['users']);
    expect(await read('a', ['users'])).toBe(2);
    tracker.noteWrite(undefined);
    expect(await read('a', ['users'])).toBe(3);
    bumpExternal();
    expect(await read('a', ['users'])).toBe(4);
    expect(await read('a', ['users'])).toBe(4);
  });

  it('does not keep an answer loaded while a write landed', async () => {
    const tracker = new WriteTracker();
    const cache = createReadCache(tracker, () => 0);
    let loads = 0;
    await cache.read('a', ['users'], async () => ++loads);
    const second = await cache.read('a', ['users'], async () => {
      tracker.noteWrite('users');
      return ++loads;
    });
    expect(second).toBe(2);
    expect(await cache.read('a', ['users'], async () => ++loads)).toBe(3);
  });

  it('does not cache failures', async () => {
    const cache = createReadCache(new WriteTracker(), () => 0);
    await expect(cache.read('a', ['users'], () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(cache.read('a', ['users'], () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.read('a', ['users'], async () => 'ok')).toBe('ok');
  });
});

describe('readMaybeNow', () => {
  it('answers a kept value without a promise, and reads as `read` does when none is kept or it went stale', async () => {
    const tracker = new WriteTracker();
    let externalVersion = 1;
    let loads = 0;
    const cache = createReadCache(tracker, () => externalVersion);
    const read = () => cache.readMaybeNow('a', ['destinations'], async () => ++loads);
    const first = read();
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(1);
    expect(await read()).toBe(2);
    expect(read()).toBe(2);
    tracker.noteWrite('destinations');
    const stale = read();
    expect(stale).toBeInstanceOf(Promise);
    expect(await stale).toBe(3);
    expect(read()).toBe(3);
    externalVersion++;
    expect(await read()).toBe(4);
    expect(read()).toBe(4);
    expect(cache.stats()).toEqual({ hits: 3, reads: 7 });
  });

  it('needs no catching up where kept answers need not wait (SQLite)', async () => {
    const cache = createReadCache(new WriteTracker(), () => 0);
    expect(cache.catchUp()).toBeUndefined();
    expect(cache.atOnce(undefined, () => 'ran')).toBe('ran');
  });

  it('always answers with a promise where kept answers wait for the bus (PostgreSQL)', async () => {
    const cache = createReadCache(new WriteTracker(), () => 0, async () => true);
    let loads = 0;
    const read = () => cache.readMaybeNow('a', ['destinations'], async () => ++loads);
    for (const expected of [1, 2, 2]) {
      const answer = read();
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toBe(expected);
    }
  });
});

describe('createReadCache with caughtUp (PostgreSQL)', () => {
  it('serves a kept answer only once the writes committed before the call are in, and loads the new one when one was', async () => {
    const tracker = new WriteTracker();
    let pendingWrite: string | undefined;
    let waits = 0;
    // What the bus does: the notifications of writes committed before the call arrive, then it resolves.
    const caughtUp = async () => {
      waits++;
      if (pendingWrite) tracker.noteWrite(pendingWrite);
      pendingWrite = undefined;
      return true;
    };
    const cache = createReadCache(tracker, () => 0, caughtUp);
    let loads = 0;
    const read = () => cache.read('a', ['destinations'], async () => ++loads);
    expect([await read(), await read(), await read()]).toEqual([1, 2, 2]);
    // Misses load at once: only serving a kept answer waits.
    expect(waits).toBe(1);
    pendingWrite = 'destinations';
    expect(await read()).toBe(3);
    expect(await read()).toBe(3);
  });

  it('loads every read while the bus cannot tell, and keeps nothing it could serve stale', async () => {
    let listening = true;
    const cache = createReadCache(new WriteTracker(), () => 0, async () => listening);
    let loads = 0;
    const read = () => cache.read('a', ['destinations'], async () => ++loads);
    await read();
    expect(await read()).toBe(2);
    listening = false;
    expect([await read(), await read()]).toEqual([3, 4]);
    listening = true;
    expect(await read()).toBe(2);
    cache.clear();
    expect([await read(), await read(), await read()]).toEqual([5, 6, 6]);
  });

  it('a catch-up begun before the reads serves their kept answers at once, after the writes committed before it are in', async () => {
    const tracker = new WriteTracker();
    let pendingWrite: string | undefined;
    let waits = 0;
    const cache = createReadCache(tracker, () => 0, async () => {
      waits++;
      if (pendingWrite) tracker.noteWrite(pendingWrite);
      pendingWrite = undefined;
      return true;
    });
    let loads = 0;
    const read = () => cache.readMaybeNow('a', ['destinations'], async () => ++loads);
    expect([await read(), await read()]).toEqual([1, 2]);
    // A write committed before the work began, not yet heard: the catch-up hears it, and the kept answer is not served.
    pendingWrite = 'destinations';
    const caughtUp = await cache.catchUp();
    expect(caughtUp).not.toBeNull();
    const stale = cache.atOnce(caughtUp, read);
    expect(stale).toBeInstanceOf(Promise);
    expect(await stale).toBe(3);
    const waited = waits;
    // Now kept and current: at once, and without another ping, for `read` too.
    expect(cache.atOnce(caughtUp, read)).toBe(3);
    expect(await cache.atOnce(caughtUp, () => cache.read('a', ['destinations'], async () => ++loads))).toBe(3);
    expect(waits).toBe(waited);
    // Outside `atOnce` a kept answer still waits for a ping of its own.
    expect(read()).toBeInstanceOf(Promise);
  });

  it('a catch-up says nothing once the bus lost its connection, nor across a gap', async () => {
    let listening = false;
    const cache = createReadCache(new WriteTracker(), () => 0, async () => listening);
    let loads = 0;
    const read = () => cache.readMaybeNow('a', ['destinations'], async () => ++loads);
    expect(await cache.catchUp()).toBeNull();
    listening = true;
    await read();
    await read();
    const caughtUp = await cache.catchUp();
    expect(cache.atOnce(caughtUp, read)).toBe(2);
    cache.clear();
    await read();
    await read();
    // Kept again after the gap, but what was heard before it says nothing of what is kept now.
    expect(cache.atOnce(caughtUp, read)).toBeInstanceOf(Promise);
    expect(cache.atOnce(await cache.catchUp(), read)).toBe(4);
  });

  it('never keeps a read of a table whose writes are not reported', async () => {
    const cache = createReadCache(new WriteTracker(new Set(['sessions'])), () => 0);
    let loads = 0;
    for (let i = 0; i < 3; i++) await cache.read('a', ['call_reports', 'sessions'], async () => ++loads);
    expect(loads).toBe(3);
  });
});

describe('cached values', () => {
  it('are frozen, so no caller can change what the next one gets', async () => {
    const cache = createReadCache(new WriteTracker(), () => 0);
    const load = async () => [{ id: 1, roles: [{ role: 'user' }] }];
    await cache.read('a', ['users'], load);
    const value = await cache.read('a', ['users'], load);
    expect(await cache.read('a', ['users'], load)).toBe(value);
    expect(() => value.push({ id: 2, roles: [] })).toThrow(TypeError);
    expect(() => {
      value[0]!.roles[0]!.role = 'admin';
    }).toThrow(TypeError);
  });
});
