import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

interface CreatedKey {
  id: number;
  name: string;
  prefix: string;
  created_time: string;
  last_used_time: string | null;
  key: string;
}

const codeOf = (response: LightMyRequestResponse): string | undefined => response.json<{ error: { code?: string } }>().error.code;

describe('API keys (credentials)', () => {
  let server: TestServer;
  let admin: string;
  let tenantId: number;
  let otherTenantId: number;
  let carla: { id: number; token: string };
  let davi: { id: number; token: string };

  async function createUser(username: string, role: 'user' | 'guest', tenant: number): Promise<{ id: number; token: string }> {
    const password = `${username}-password-1`;
    const response = await server.call({
      method: 'POST',
      url: '/users',
      token: admin,
      payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenant }] },
    });
    expect(response.statusCode, response.body).toBe(201);
    return { id: response.json<{ id: number }>().id, token: await server.login(username, password) };
  }

  const createKey = async (token: string, name: string): Promise<CreatedKey> => {
    const response = await server.call({ method: 'POST', url: '/api-keys', token, payload: { name } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<CreatedKey>();
  };

  const whoamiWith = (headers: Record<string, string>) => server.call({ method: 'GET', url: '/whoami', headers });

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    const tenant = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'keys-tenant' } });
    tenantId = tenant.json<{ id: number }>().id;
    const other = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'other-tenant' } });
    otherTenantId = other.json<{ id: number }>().id;
    carla = await createUser('carla', 'user', tenantId);
    davi = await createUser('davi', 'guest', otherTenantId);
  });
  afterAll(() => server.close());

  test('the secret is shown once at creation; the list never shows it and the database keeps only a hash', async () => {
    const created = await createKey(carla.token, 'ci pipeline');
    expect(created.key).toMatch(new RegExp(`^vxk_${created.id}_[A-Za-z0-9_-]{20,}$`));
    const secret = created.key.slice(`vxk_${created.id}_`.length);
    expect(created).toMatchObject({ name: 'ci pipeline', last_used_time: null });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.key.length - 16);

    const list = await server.call({ method: 'GET', url: '/api-keys', token: carla.token });
    expect(list.statusCode).toBe(200);
    const listed = list.json<Record<string, unknown>[]>();
    expect(listed).toEqual([
      { id: created.id, name: 'ci pipeline', prefix: created.prefix, created_time: created.created_time, last_used_time: null },
    ]);
    expect(list.body).not.toContain(secret);

    const row = await server.ctx.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);

    // Nor does the audit log of the creation hold it.
    const audit = await server.call({ method: 'GET', url: '/audit', token: admin });
    expect(audit.statusCode).toBe(200);
    expect(audit.body).toContain('api_key');
    expect(audit.body).not.toContain(secret);
  });

  test('a key authenticates as its user, by Bearer and by X-Api-Key, with that user’s roles and tenant', async () => {
    const { key } = await createKey(carla.token, 'integration');
    for (const headers of [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }] as Record<string, string>[]) {
      const me = await whoamiWith(headers);
      expect(me.statusCode, me.body).toBe(200);
      expect(me.json()).toMatchObject({ id: carla.id, username: 'carla', roles: [{ role: 'user', tenant_id: tenantId }] });
    }

    // Its user's role: not an admin, so admin areas are refused...
    const users = await server.call({ method: 'GET', url: '/users', headers: { 'x-api-key': key } });
    expect(users.statusCode).toBe(403);
    expect(codeOf(users)).toBe('no_role_permission');

    // ...and its user's tenant: what it creates lands in carla's tenant, whatever tenant it asks for.
    const created = await server.call({
      method: 'POST',
      url: '/destinations',
      headers: { authorization: `Bearer ${key}`, 'x-tenant-id': String(otherTenantId) },
      payload: { name: 'support', kind: 'voice', uri: 'sip:support@example.com' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ tenant_id: tenantId });

    const listed = await server.call({ method: 'GET', url: '/api-keys', token: carla.token });
    const used = listed.json<CreatedKey[]>().find((item) => key.startsWith(item.prefix));
    expect(used?.last_used_time).not.toBeNull();
  });

  test('a guest creates no key (readonly_only), and nothing is stored', async () => {
    const before = await server.call({ method: 'GET', url: '/api-keys', token: davi.token });
    const refused = await server.call({ method: 'POST', url: '/api-keys', token: davi.token, payload: { name: 'read only' } });
    expect(refused.statusCode).toBe(403);
    expect(codeOf(refused)).toBe('readonly_only');
    const after = await server.call({ method: 'GET', url: '/api-keys', token: davi.token });
    expect(after.json()).toEqual(before.json());
  });

  test("a key made by a user who became a guest writes nothing, and the guest can still revoke it", async () => {
    const fabio = await createUser('fabio', 'user', tenantId);
    const { id, key } = await createKey(fabio.token, 'made as a user');
    const write = () =>
      server.call({ method: 'POST', url: '/destinations', headers: { 'x-api-key': key }, payload: { name: `by key ${Date.now()}`, kind: 'voice', uri: `sip:${Date.now()}@example.com` } });
    expect((await write()).statusCode).toBe(201);

    const demoted = await server.call({ method: 'PATCH', url: `/users/${fabio.id}`, token: admin, payload: { roles: [{ role: 'guest', tenant_id: tenantId }] } });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect((await server.call({ method: 'GET', url: '/destinations', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const refused = await write();
    expect(refused.statusCode).toBe(403);
    expect(codeOf(refused)).toBe('readonly_only');
    const minted = await server.call({ method: 'POST', url: '/api-keys', headers: { 'x-api-key': key }, payload: { name: 'another' } });
    expect(minted.statusCode).toBe(403);
    expect(codeOf(minted)).toBe('readonly_only');

    const guest = await server.login('fabio', 'fabio-password-1');
    expect((await server.call({ method: 'DELETE', url: `/api-keys/${id}`, token: guest })).statusCode).toBe(204);
    expect((await whoamiWith({ 'x-api-key': key })).statusCode).toBe(401);
  });

  test('malformed key → invalid_api_key, unknown id → api_key_not_found, wrong secret → invalid_secret', async () => {
    const { id, key } = await createKey(carla.token, 'probe');
    const secret = key.slice(`vxk_${id}_`.length);
    const wrongSecret = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const cases: [string, string][] = [
      ['vxk_', 'invalid_api_key'],
      ['vxk_abc_defghijklmnopqrstuvwxyz', 'invalid_api_key'],
      [`vxk_${id}_short`, 'invalid_api_key'],
      [`vxk_${id}_${secret}!`, 'invalid_api_key'],
      [`vxk_999999_${secret}`, 'api_key_not_found'],
      // An id past any integer column: still just "not found", not a database error.
      [`vxk_999999999999_${secret}`, 'api_key_not_found'],
      [`vxk_${id}_${wrongSecret}`, 'invalid_secret'],
    ];
    for (const [value, code] of cases) {
      for (const headers of [{ authorization: `Bearer ${value}` }, { 'x-api-key': value }] as Record<string, string>[]) {
        const response = await whoamiWith(headers);
        expect(response.statusCode, `${value}: ${response.body}`).toBe(401);
        expect(codeOf(response), value).toBe(code);
      }
    }
  });

  test('a revoked key stops working at once', async () => {
    const { id, key } = await createKey(carla.token, 'to revoke');
    expect((await whoamiWith({ 'x-api-key': key })).statusCode).toBe(200);
    const revoked = await server.call({ method: 'DELETE', url: `/api-keys/${id}`, token: carla.token });
    expect(revoked.statusCode).toBe(204);
    const after = await whoamiWith({ 'x-api-key': key });
    expect(after.statusCode).toBe(401);
    expect(codeOf(after)).toBe('api_key_not_found');
    const list = await server.call({ method: 'GET', url: '/api-keys', token: carla.token });
    expect(list.json<CreatedKey[]>().map((item) => item.id)).not.toContain(id);
    const again = await server.call({ method: 'DELETE', url: `/api-keys/${id}`, token: carla.token });
    expect(again.statusCode).toBe(404);
  });

  test("a user neither sees nor revokes another user's keys, not even an admin", async () => {
    const carlasKey = await createKey(carla.token, 'carla only');
    const davisList = await server.call({ method: 'GET', url: '/api-keys', token: davi.token });
    expect(davisList.json<CreatedKey[]>().map((item) => item.id)).not.toContain(carlasKey.id);
    const adminList = await server.call({ method: 'GET', url: '/api-keys', token: admin });
    expect(adminList.json<CreatedKey[]>().map((item) => item.id)).not.toContain(carlasKey.id);

    for (const token of [davi.token, admin]) {
      const attempt = await server.call({ method: 'DELETE', url: `/api-keys/${carlasKey.id}`, token });
      expect(attempt.statusCode).toBe(404);
      expect(codeOf(attempt)).toBe('api_key_not_found');
    }
    expect((await whoamiWith({ 'x-api-key': carlasKey.key })).statusCode).toBe(200);
  });

  test('a key stops working when its user is removed', async () => {
    const erin = await createUser('erin', 'user', tenantId);
    const { key } = await createKey(erin.token, 'short lived');
    expect((await whoamiWith({ 'x-api-key': key })).statusCode).toBe(200);
    expect((await server.call({ method: 'DELETE', url: `/users/${erin.id}`, token: admin })).statusCode).toBe(204);
    const after = await whoamiWith({ 'x-api-key': key });
    expect(after.statusCode).toBe(401);
    expect(codeOf(after)).toBe('api_key_not_found');
  });

  test('creating a key needs a name; unknown fields are refused', async () => {
    const empty = await server.call({ method: 'POST', url: '/api-keys', token: carla.token, payload: { name: '  ' } });
    expect(empty.statusCode).toBe(400);
    expect(codeOf(empty)).toBe('invalid_input');
    const extra = await server.call({ method: 'POST', url: '/api-keys', token: carla.token, payload: { name: 'x', user_id: davi.id } });
    expect(extra.statusCode).toBe(400);
    expect(codeOf(extra)).toBe('invalid_input');
  });
});
