import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.ts';
import { createTransactionRunner, type TransactionRunner } from '../src/db/write-batch.ts';
import { createTenantMember, dialect, errorOf, startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
let writes: TransactionRunner;
/** A second connection, as another server instance would have: it sees only what was committed. */
let otherInstance: DatabaseHandle;

beforeAll(async () => {
  server = await startTestServer();
  writes = createTransactionRunner(server.ctx.db, server.ctx.dialect);
  otherInstance = openDatabase({ databaseUrl: server.config.databaseUrl, dataDir: server.config.dataDir });
});
afterAll(async () => {
  await otherInstance.close();
  await server.close();
});

const now = '2026-11-23T10:00:00.000Z';
const namesSeenByOthers = async (prefix: string) =>
  (await otherInstance.db.selectFrom('tenants').select('name').where('name', 'like', `${prefix}%`).orderBy('name').execute()).map((row) => row.name);

describe('units of work asked for together', () => {
  test('each is stored, and answered only once another connection can read it', async () => {
    const names = ['batch a 1', 'batch a 2', 'batch a 3', 'batch a 4'];
    const ids = await Promise.all(
      names.map((name) =>
        writes.run(async (trx) => {
          const row = await trx.insertInto('tenants').values({ name, created_time: now }).returning('id').executeTakeFirstOrThrow();
          return row.id;
        }),
      ),
    );
    expect(new Set(ids).size).toBe(4);
    expect(await namesSeenByOthers('batch a')).toEqual(names);
  });

  test('one that fails is rolled back alone, all of it, and the others are stored', async () => {
    // Stored before the batch: on PostgreSQL the units run side by side, so a name taken within the batch would race.
    await writes.run((trx) => trx.insertInto('tenants').values({ name: 'batch b 0', created_time: now }).execute());
    const results = await Promise.allSettled([
      writes.run((trx) => trx.insertInto('tenants').values({ name: 'batch b 1', created_time: now }).execute()),
      writes.run(async (trx) => {
        await trx.insertInto('tenants').values({ name: 'batch b 2, half written', created_time: now }).execute();
        throw new Error('the second unit fails after a write');
      }),
      writes.run(async (trx) => {
        await trx.insertInto('tenants').values({ name: 'batch b 3', created_time: now }).execute();
        // A unique name taken: the database refuses this unit's second write.
        await trx.insertInto('tenants').values({ name: 'batch b 0', created_time: now }).execute();
      }),
      writes.run((trx) => trx.insertInto('tenants').values({ name: 'batch b 4', created_time: now }).execute()),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('the second unit fails after a write'));
    expect(await namesSeenByOthers('batch b')).toEqual(['batch b 0', 'batch b 1', 'batch b 4']);
  });

  test('a unit alone is a transaction of its own', async () => {
    await expect(
      writes.run(async (trx) => {
        await trx.insertInto('tenants').values({ name: 'batch c 1', created_time: now }).execute();
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await writes.run((trx) => trx.insertInto('tenants').values({ name: 'batch c 2', created_time: now }).execute());
    expect(await namesSeenByOthers('batch c')).toEqual(['batch c 2']);
  });
});

describe('writes through the API that arrive together', () => {
  test('each create is stored with its audit entry, a duplicate among them fails alone with its code, and on SQLite they share transactions', async () => {
    const admin = await server.login();
    const { token, tenantId } = await createTenantMember(server, admin, 'batched-creates');
    const transactions = vi.spyOn(server.ctx.db, 'transaction');
    const uris = ['sip:1@a.example', 'sip:2@a.example', 'sip:3@a.example', 'sip:1@a.example', 'sip:5@a.example', 'sip:6@a.example', 'sip:7@a.example', 'sip:8@a.example'];
    const responses = await Promise.all(
      uris.map((uri, index) => server.call({ method: 'POST', url: '/destinations', token, payload: { name: `batched ${index}`, kind: 'voice', uri } })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(7);
    const refused = responses.find((response) => response.statusCode !== 201)!;
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('uri_already_exists');
    // On PostgreSQL, which commits on many connections at once, each is a transaction of its own.
    if (dialect === 'sqlite') expect(transactions.mock.calls.length).toBeLessThan(uris.length / 2);
    else expect(transactions.mock.calls.length).toBe(uris.length);
    transactions.mockRestore();

    const stored = await otherInstance.db.selectFrom('destinations').select(['id', 'uri']).where('tenant_id', '=', tenantId).orderBy('id').execute();
    expect(new Set(stored.map((row) => row.uri))).toEqual(new Set(uris));
    const audited = await otherInstance.db
      .selectFrom('audit_log')
      .select('entity_id')
      .where('entity', '=', 'destination')
      .where('action', '=', 'create')
      .where('tenant_id', '=', tenantId)
      .execute();
    expect(audited.map((row) => Number(row.entity_id)).sort((a, b) => a - b)).toEqual(stored.map((row) => row.id));
  });
});
