import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { preparePositionalQuery, prepareQuery } from '../src/db/prepared.ts';
import { startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const insertTenant = prepareQuery<{ name: string; created_time: string }, { id: number; name: string; integrations: string | null }>((db, values) =>
  db
    .insertInto('tenants')
    .values({ ...values, integrations: '{"kept":true}' })
    .returning(['id', 'name', 'integrations']),
);
const tenantNamed = prepareQuery<{ name: string }, { id: number }>((db, values) => db.selectFrom('tenants').select('id').where('name', '=', values.name));

describe('a prepared query', () => {
  test('runs with the values of each call, and keeps the constants of the query it was built from', async () => {
    const first = (await insertTenant(server.ctx.db, { name: 'prepared one', created_time: '2026-11-23T10:00:00.000Z' })).rows[0];
    const second = (await insertTenant(server.ctx.db, { name: 'prepared two', created_time: '2026-11-23T11:00:00.000Z' })).rows[0];
    expect(first).toMatchObject({ name: 'prepared one', integrations: '{"kept":true}' });
    expect(second).toMatchObject({ name: 'prepared two', integrations: '{"kept":true}' });
    expect(second!.id).not.toBe(first!.id);
    expect((await tenantNamed(server.ctx.db, { name: 'prepared two' })).rows).toEqual([{ id: second!.id }]);
    expect((await tenantNamed(server.ctx.db, { name: 'nobody' })).rows).toEqual([]);
  });

  test('runs in a transaction, and what a rolled-back transaction wrote is gone', async () => {
    await expect(
      server.ctx.db.transaction().execute(async (trx) => {
        await insertTenant(trx, { name: 'prepared, rolled back', created_time: '2026-11-23T12:00:00.000Z' });
        expect((await tenantNamed(trx, { name: 'prepared, rolled back' })).rows).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await tenantNamed(server.ctx.db, { name: 'prepared, rolled back' })).rows).toEqual([]);
  });

  test('outside a transaction, never sees what an open transaction wrote; reads it once committed', async () => {
    let wrote!: () => void;
    let commit!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const committing = new Promise<void>((resolve) => (commit = resolve));
    const transaction = server.ctx.db.transaction().execute(async (trx) => {
      await insertTenant(trx, { name: 'prepared, not committed yet', created_time: '2026-11-23T14:00:00.000Z' });
      wrote();
      await committing;
    });
    await written;
    // Asked while the transaction is open (on SQLite, on the same connection): an answer given
    // before the commit holds only what is committed; SQLite's waits for the commit instead.
    let seen: number | undefined;
    const during = tenantNamed(server.ctx.db, { name: 'prepared, not committed yet' }).then((result) => (seen = result.rows.length));
    await new Promise((resolve) => setImmediate(resolve));
    if (seen !== undefined) expect(seen).toBe(0);
    commit();
    await transaction;
    await during;
    expect((await tenantNamed(server.ctx.db, { name: 'prepared, not committed yet' })).rows).toHaveLength(1);
  });

  test('refuses values it does not take, and values left out', async () => {
    await insertTenant(server.ctx.db, { name: 'prepared three', created_time: '2026-11-23T13:00:00.000Z' });
    const extra = { name: 'x', created_time: 'y', integrations: 'z' } as unknown as { name: string; created_time: string };
    await expect(insertTenant(server.ctx.db, extra)).rejects.toThrow(/takes name, created_time/);
    const missing = { name: 'x' } as unknown as { name: string; created_time: string };
    await expect(insertTenant(server.ctx.db, missing)).rejects.toThrow(/takes name, created_time/);
  });

  test('a query built without one of its values is refused when it is first run', async () => {
    const forgetful = prepareQuery<{ name: string; created_time: string }, { id: number }>((db, values) =>
      db.selectFrom('tenants').select('id').where('name', '=', values.name),
    );
    await expect(forgetful(server.ctx.db, { name: 'x', created_time: 'y' })).rejects.toThrow(/leaves out created_time/);
  });

  test('by position: each value goes where its name is in the query, whatever order the query takes them in; a count out of step is refused', async () => {
    // The query binds `to` before `from`: the names say which value is which, not the query's order.
    const namedBetween = preparePositionalQuery<{ name: string }>(['from', 'to'], (db, values) =>
      db
        .selectFrom('tenants')
        .select('name')
        .where('name', '<=', values.to as string)
        .where('name', '>=', values.from as string)
        .orderBy('name'),
    );
    await insertTenant(server.ctx.db, { name: 'positional a', created_time: '2026-11-30T09:00:00.000Z' });
    await insertTenant(server.ctx.db, { name: 'positional b', created_time: '2026-11-30T09:00:00.000Z' });
    expect((await namedBetween(server.ctx.db, ['positional a', 'positional az'])).rows.map((row) => row.name)).toEqual(['positional a']);
    expect((await namedBetween(server.ctx.db, ['positional b', 'positional c'])).rows.map((row) => row.name)).toEqual(['positional b']);
    await expect(namedBetween(server.ctx.db, ['positional a'])).rejects.toThrow(/takes 2 values \(from, to\), given 1/);
    const forgetful = preparePositionalQuery<{ id: number }>(['from', 'to'], (db, values) => db.selectFrom('tenants').select('id').where('name', '=', values.from as string));
    await expect(forgetful(server.ctx.db, ['x', 'y'])).rejects.toThrow(/leaves out to/);
  });
});
