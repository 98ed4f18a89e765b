import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.ts';
import { nowIso } from '../src/lib/time.ts';
import { q, startTestServer, type TestServer } from './harness.ts';

/**
 * Reads are answered from a cache until a table they read is written (db/read-cache.ts). These
 * tests write the way a second server instance would, through a connection of its own, and check
 * that no answer outlives the change by more than the millisecond the SQLite check allows.
 */
const byAnotherInstance = async (write: Promise<unknown>) => {
  await write;
  await new Promise((resolve) => setTimeout(resolve, 5));
};
let server: TestServer;
let admin: string;
let otherInstance: DatabaseHandle;
let tenantId: number;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  otherInstance = openDatabase({ databaseUrl: server.config.databaseUrl, dataDir: server.config.dataDir });
  const tenant = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'cache' } });
  tenantId = tenant.json<{ id: number }>().id;
});
afterAll(async () => {
  await otherInstance.close();
  await server.close();
});

async function createDestination(name: string): Promise<number> {
  const response = await server.call({
    method: 'POST',
    url: '/destinations',
    token: admin,
    tenant: tenantId,
    payload: { name, kind: 'voice', uri: `sip:${name}@pbx.example.com` },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

const readTwice = async (url: string) => {
  const first = await server.call({ method: 'GET', url, token: admin, tenant: tenantId });
  const second = await server.call({ method: 'GET', url, token: admin, tenant: tenantId });
  expect(second.body).toBe(first.body);
  return first.json<unknown>();
};

describe('answers follow writes made by another instance', () => {
  it('count, list and get see a row another instance added, renamed and removed', async () => {
    const id = await createDestination('front-desk');
    const where = q('where', { name: { like: 'front%' } });
    const filter = q('filter', { where: { name: { like: 'front%' } }, order: ['name ASC'] });
    expect(await readTwice(`/destinations/count?${where}`)).toEqual({ count: 1 });
    expect(await readTwice(`/destinations?${filter}`)).toMatchObject([{ name: 'front-desk' }]);
    expect(await readTwice(`/destinations/${id}`)).toMatchObject({ name: 'front-desk' });

    const now = nowIso();
    await byAnotherInstance(
      otherInstance.db
        .insertInto('destinations')
        .values({ tenant_id: tenantId, name: 'front-office', kind: 'voice', uri: 'sip:office@pbx.example.com', description: '', created_time: now, updated_time: now })
        .execute(),
    );
    expect(await readTwice(`/destinations/count?${where}`)).toEqual({ count: 2 });
    expect(await readTwice(`/destinations?${filter}`)).toMatchObject([{ name: 'front-desk' }, { name: 'front-office' }]);

    await byAnotherInstance(otherInstance.db.updateTable('destinations').set({ name: 'front-door' }).where('id', '=', id).execute());
    expect(await readTwice(`/destinations/${id}`)).toMatchObject({ name: 'front-door' });

    await byAnotherInstance(otherInstance.db.deleteFrom('destinations').where('id', '=', id).execute());
    const gone = await server.call({ method: 'GET', url: `/destinations/${id}`, token: admin, tenant: tenantId });
    expect(gone.statusCode).toBe(404);
    expect(await readTwice(`/destinations/count?${where}`)).toEqual({ count: 1 });
  });

  it('a sign-in revoked by another instance stops working at once', async () => {
    const token = await server.login();
    const before = await server.call({ method: 'GET', url: '/whoami', token });
    expect(before.statusCode).toBe(200);
    await byAnotherInstance(otherInstance.db.updateTable('auth_sessions').set({ revoked_time: nowIso() }).where('revoked_time', 'is', null).execute());
    const after = await server.call({ method: 'GET', url: '/whoami', token });
    expect(after.statusCode).toBe(401);
    expect(after.json<{ error: { code: string } }>().error.code).toBe('token_not_found');
    admin = await server.login();
  });

  it("a role changed by another instance applies to the user's next call", async () => {
    const payload = { username: 'cache-user', password: 'cache-user-password', email: 'cache@example.com', name: 'Cache', roles: [{ role: 'user', tenant_id: tenantId }] };
    const created = await server.call({ method: 'POST', url: '/users', token: admin, payload });
    expect(created.statusCode, created.body).toBe(201);
    const userId = created.json<{ id: number }>().id;
    const token = await server.login(payload.username, payload.password);
    const write = () =>
      server.call({ method: 'POST', url: '/destinations', token, payload: { name: `by-user-${Math.random()}`, kind: 'chat', uri: `https://example.com/${Math.random()}` } });
    expect((await write()).statusCode).toBe(201);

    await byAnotherInstance(otherInstance.db.updateTable('user_roles').set({ role: 'guest' }).where('user_id', '=', userId).execute());
    const refused = await write();
    expect(refused.statusCode).toBe(403);
    expect(refused.json<{ error: { code: string } }>().error.code).toBe('readonly_only');
  });

  it("a user's list shows roles changed by another instance", async () => {
    const url = `/users?${q('filter', { where: { username: 'cache-user' } })}`;
    expect(await readTwice(url)).toMatchObject([{ roles: [{ role: 'guest' }] }]);
    await byAnotherInstance(otherInstance.db.updateTable('user_roles').set({ role: 'user' }).where('tenant_id', '=', tenantId).execute());
    expect(await readTwice(url)).toMatchObject([{ roles: [{ role: 'user' }] }]);
  });
});

describe('answers are kept by the text of the request', () => {
  it('one filter written two ways answers the same rows, before and after a write', async () => {
    await createDestination('spelled-a');
    const compact = `/destinations?filter=${encodeURIComponent('{"where":{"name":{"like":"spelled%"}},"order":["name ASC"]}')}`;
    const spaced = `/destinations?filter=${encodeURIComponent('{ "order": ["name ASC"], "where": { "name": { "like": "spelled%" } } }')}`;
    expect(await readTwice(compact)).toMatchObject([{ name: 'spelled-a' }]);
    expect(await readTwice(spaced)).toEqual(await readTwice(compact));
    await createDestination('spelled-b');
    for (const url of [compact, spaced]) expect(await readTwice(url)).toMatchObject([{ name: 'spelled-a' }, { name: 'spelled-b' }]);
  });

  it('a malformed filter is refused every time it comes', async () => {
    for (const url of [`/destinations?filter=${encodeURIComponent('{"where":')}`, `/destinations/count?where=${encodeURIComponent('{"name":')}`]) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await server.call({ method: 'GET', url, token: admin, tenant: tenantId });
        expect(response.statusCode, response.body).toBe(400);
      }
    }
  });
});
