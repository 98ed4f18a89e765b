import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { q, startTestServer, type TestServer } from './harness.ts';

interface Configuration {
  id: number;
  name: string;
  value: string;
  category: string;
  description: string;
  type: string;
  created_time: string;
  updated_time: string;
}
interface ErrorBody {
  error: { statusCode: number; code?: string; message: string; details?: { path: string; message: string }[] };
}

const errorOf = (response: LightMyRequestResponse): ErrorBody['error'] => response.json<ErrorBody>().error;

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const list = async (): Promise<Configuration[]> => {
  const response = await server.call({ method: 'GET', url: '/configurations', token: admin });
  expect(response.statusCode).toBe(200);
  return response.json<Configuration[]>();
};
const names = async (): Promise<string[]> => (await list()).map((setting) => setting.name);
const create = (payload: Record<string, unknown>) => server.call({ method: 'POST', url: '/configurations', token: admin, payload });
async function created(payload: Record<string, unknown>): Promise<Configuration> {
  const response = await create(payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Configuration>();
}
async function systemSetting(name: string): Promise<Configuration> {
  const found = (await list()).find((setting) => setting.name === name);
  if (!found) throw new Error(`${name} is not seeded`);
  return found;
}

describe('general settings', () => {
  test('the system settings are seeded with type sistema', async () => {
    const settings = await list();
    expect(settings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'audio_max_size_mb', value: '10', category: 'audio', type: 'sistema', description: expect.any(String) }),
        expect.objectContaining({ name: 'outbound_allow_loopback', value: 'false', category: 'security', type: 'sistema' }),
      ]),
    );
  });

  test('create, read, update and remove a setting', async () => {
    const setting = await created({ name: 'greeting.text', value: 'Hello', category: 'ivr', description: 'What callers hear first' });
    expect(setting).toMatchObject({ name: 'greeting.text', value: 'Hello', category: 'ivr', description: 'What callers hear first', type: 'custom' });
    expect(Date.parse(setting.created_time)).not.toBeNaN();

    const fetched = await server.call({ method: 'GET', url: `/configurations/${setting.id}`, token: admin });
    expect(fetched.json()).toEqual(setting);
    const filtered = await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { category: 'ivr' } })}`, token: admin });
    expect(filtered.json<Configuration[]>().map((item) => item.name)).toEqual(['greeting.text']);

    const patched = await server.call({
      method: 'PATCH',
      url: `/configurations/${setting.id}`,
      token: admin,
      payload: { value: 'Olá', description: 'Greeting' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: setting.id, name: 'greeting.text', value: 'Olá', description: 'Greeting', category: 'ivr' });
    expect((await server.call({ method: 'GET', url: `/configurations/${setting.id}`, token: admin })).json()).toMatchObject({ value: 'Olá' });

    const removed = await server.call({ method: 'DELETE', url: `/configurations/${setting.id}`, token: admin });
    expect(removed.statusCode).toBe(204);
    expect((await server.call({ method: 'GET', url: `/configurations/${setting.id}`, token: admin })).statusCode).toBe(404);
    expect(await names()).not.toContain('greeting.text');
  });

  test('defaults: empty value and description, category general', async () => {
    const setting = await created({ name: 'bare' });
    expect(setting).toMatchObject({ name: 'bare', value: '', description: '', category: 'general', type: 'custom' });
  });

  test('names are unique: name_already_exists, also against a system setting', async () => {
    await created({ name: 'unique.one', value: '1' });
    for (const name of ['unique.one', 'audio_max_size_mb']) {
      const duplicate = await create({ name, value: '2' });
      expect(duplicate.statusCode, name).toBe(409);
      expect(errorOf(duplicate)).toMatchObject({ code: 'name_already_exists', message: 'This name is already in use.' });
    }
    expect((await names()).filter((name) => name === 'unique.one')).toHaveLength(1);
  });

  test('invalid input is refused naming the field', async () => {
    for (const [payload, field] of [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'Has Spaces' }, 'name'],
      [{ name: 'ok', value: 42 }, 'value'],
      [{ name: 'ok', description: 'x'.repeat(501) }, 'description'],
    ] as const) {
      const response = await create(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      expect(errorOf(response).details?.map((detail) => detail.path.split('.').pop())).toContain(field);
    }
    const unknown = await create({ name: 'ok', secret: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(JSON.stringify(errorOf(unknown).details)).toContain('secret');
    expect(await names()).not.toContain('ok');
  });

  test('a setting cannot be renamed or retyped by an update', async () => {
    const setting = await created({ name: 'fixed.name' });
    for (const payload of [{ name: 'other.name' }, { type: 'sistema' }]) {
      const response = await server.call({ method: 'PATCH', url: `/configurations/${setting.id}`, token: admin, payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
    }
    expect((await server.call({ method: 'GET', url: `/configurations/${setting.id}`, token: admin })).json()).toMatchObject({
      name: 'fixed.name',
      type: 'custom',
    });
  });

  test('type sistema is reserved: a setting created through the API cannot claim it', async () => {
    const response = await create({ name: 'pretend.system', type: 'sistema' });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('invalid_input');
    expect(errorOf(response).details?.map((detail) => detail.path)).toEqual(['type']);
    expect(await names()).not.toContain('pretend.system');
    expect((await created({ name: 'other.type', type: 'tuning' })).type).toBe('tuning');
  });
});

describe('system settings cannot be removed', () => {
  test('a single removal is refused; the value can still be changed', async () => {
    const setting = await systemSetting('audio_max_size_mb');
    const refused = await server.call({ method: 'DELETE', url: `/configurations/${setting.id}`, token: admin });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused)).toMatchObject({ code: 'system_setting_not_removable', message: 'System settings cannot be removed.' });
    expect(await names()).toContain('audio_max_size_mb');

    const patched = await server.call({ method: 'PATCH', url: `/configurations/${setting.id}`, token: admin, payload: { value: '25' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ value: '25', type: 'sistema' });
  });

  test('a bulk removal of system settings is refused', async () => {
    const ids = [(await systemSetting('audio_max_size_mb')).id, (await systemSetting('outbound_allow_loopback')).id];
    const refused = await server.call({ method: 'DELETE', url: '/configurations', token: admin, payload: ids });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('system_setting_not_removable');
    expect(await names()).toEqual(expect.arrayContaining(['audio_max_size_mb', 'outbound_allow_loopback']));
  });

  test('a bulk removal mixing a removable and a system setting removes nothing', async () => {
    const removable = await created({ name: 'mixed.removable' });
    const system = await systemSetting('outbound_allow_loopback');
    const refused = await server.call({ method: 'DELETE', url: '/configurations', token: admin, payload: { ids: [removable.id, system.id] } });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('system_setting_not_removable');
    expect(await names()).toEqual(expect.arrayContaining(['mixed.removable', 'outbound_allow_loopback']));

    const alone = await server.call({ method: 'DELETE', url: '/configurations', token: admin, payload: { ids: [removable.id] } });
    expect(alone.statusCode).toBe(200);
    expect(alone.json()).toEqual({ count: 1 });
    expect(await names()).not.toContain('mixed.removable');
  });
});

describe('general settings are for admins only', () => {
  test('users and guests get 403 no_role_permission', async () => {
    const tenant = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'settings-tenant' } });
    const tenantId = tenant.json<{ id: number }>().id;
    const target = await created({ name: 'target.setting', value: 'kept' });
    for (const role of ['user', 'guest'] as const) {
      const username = `settings-${role}`;
      const user = await server.call({
        method: 'POST',
        url: '/users',
        token: admin,
        payload: { username, password: 'a-good-password', email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
      });
      expect(user.statusCode).toBe(201);
      const token = await server.login(username, 'a-good-password');
      const calls = [
        () => server.call({ method: 'GET', url: '/configurations', token }),
        () => server.call({ method: 'GET', url: `/configurations/${target.id}`, token }),
        () => server.call({ method: 'POST', url: '/configurations', token, payload: { name: `${role}.made` } }),
        () => server.call({ method: 'PATCH', url: `/configurations/${target.id}`, token, payload: { value: 'changed' } }),
        () => server.call({ method: 'DELETE', url: `/configurations/${target.id}`, token }),
        () => server.call({ method: 'DELETE', url: '/configurations', token, payload: [target.id] }),
      ];
      for (const call of calls) {
        const response = await call();
        expect(response.statusCode, response.body).toBe(403);
        expect(errorOf(response).code).toBe('no_role_permission');
      }
    }
    expect((await server.call({ method: 'GET', url: `/configurations/${target.id}`, token: admin })).json()).toMatchObject({ value: 'kept' });
    expect(await names()).not.toEqual(expect.arrayContaining(['user.made']));
  });
});

describe('system settings take only values of their kind', () => {
  const patch = (id: number, payload: Record<string, unknown>, headers?: Record<string, string>) =>
    server.call({ method: 'PATCH', url: `/configurations/${id}`, token: admin, payload, headers });
  const expectRefused = (response: LightMyRequestResponse, name: string, allowed: string) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response)).toMatchObject({
      code: 'invalid_setting_value',
      message: `${name} does not take this value; allowed: ${allowed}.`,
      details: [{ path: 'value', message: `${name} takes ${allowed}` }],
    });
  };

  test('a number setting refuses text, other notations and values out of its range, and keeps its value', async () => {
    const setting = await systemSetting('audio_max_size_mb');
    expect((await patch(setting.id, { value: '10' })).statusCode).toBe(200);
    for (const value of ['abc', '', '1e3', '0x10', '0', '0.05', '1025', '-5', '10 MB']) {
      expectRefused(await patch(setting.id, { value }), 'audio_max_size_mb', '0.1–1024');
    }
    expect((await systemSetting('audio_max_size_mb')).value).toBe('10');
    const portuguese = await patch(setting.id, { value: 'abc' }, { 'accept-language': 'pt-BR' });
    expect(errorOf(portuguese).message).toBe('audio_max_size_mb não aceita este valor; permitido: 0.1–1024.');

    for (const value of ['0.1', '1024', ' 25 ']) {
      const accepted = await patch(setting.id, { value });
      expect(accepted.statusCode, value).toBe(200);
      expect(accepted.json<Configuration>().value).toBe(value.trim());
    }
  });

  test('a boolean setting takes only true or false', async () => {
    const setting = await systemSetting('feature_second_ai_provider');
    for (const value of ['yes', '1', 'TRUE', 'on', '']) {
      expectRefused(await patch(setting.id, { value }), 'feature_second_ai_provider', 'true, false');
    }
    expect((await systemSetting('feature_second_ai_provider')).value).toBe('false');
    expect((await patch(setting.id, { value: 'true' })).json<Configuration>().value).toBe('true');
    expect((await patch(setting.id, { value: 'false' })).json<Configuration>().value).toBe('false');
  });

  test('a bulk PATCH that would give one system setting a wrong value changes no row', async () => {
    const kept = (await systemSetting('audio_max_size_mb')).value;
    const custom = await created({ name: 'bulk.custom', value: 'before', category: 'audio' });
    const refused = await server.call({ method: 'PATCH', url: `/configurations?${q('where', { category: 'audio' })}`, token: admin, payload: { value: 'abc' } });
    expectRefused(refused, 'audio_max_size_mb', '0.1–1024');
    expect((await server.call({ method: 'GET', url: `/configurations/${custom.id}`, token: admin })).json()).toMatchObject({ value: 'before' });
    expect((await systemSetting('audio_max_size_mb')).value).toBe(kept);

    const accepted = await server.call({ method: 'PATCH', url: `/configurations?${q('where', { category: 'audio' })}`, token: admin, payload: { value: '12' } });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await systemSetting('audio_max_size_mb')).value).toBe('12');
  });

  test('a create naming a system setting is checked too, before its name is found taken', async () => {
    const kept = (await systemSetting('audio_max_size_mb')).value;
    expectRefused(await create({ name: 'audio_max_size_mb', value: 'abc' }), 'audio_max_size_mb', '0.1–1024');
    expect((await create({ name: 'audio_max_size_mb', value: '5' })).statusCode).toBe(409);
    expect((await systemSetting('audio_max_size_mb')).value).toBe(kept);
  });

  test('custom settings take any text', async () => {
    const setting = await created({ name: 'free.text', value: 'abc' });
    expect((await patch(setting.id, { value: '1e3 or so' })).json<Configuration>().value).toBe('1e3 or so');
  });
});

describe('a system setting changes only its value', () => {
  const byId = async (id: number) => (await server.call({ method: 'GET', url: `/configurations/${id}`, token: admin })).json<Configuration>();
  const expectValueOnly = (response: LightMyRequestResponse, fields: string[]) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'system_setting_value_only', message: 'Only the value of a system setting can be changed.' });
    expect(errorOf(response).details?.map((detail) => detail.path)).toEqual(fields);
  };

  test('PATCH by id refuses a new category or description, with or without a value, and stores nothing', async () => {
    const before = await systemSetting('outbound_allow_private');
    for (const [payload, fields] of [
      [{ category: 'mine' }, ['category']],
      [{ description: 'my words' }, ['description']],
      [{ value: 'true', category: 'mine', description: 'my words' }, ['category', 'description']],
    ] as const) {
      const refused = await server.call({ method: 'PATCH', url: `/configurations/${before.id}`, token: admin, payload });
      expectValueOnly(refused, [...fields]);
    }
    for (const payload of [{ name: 'renamed' }, { type: 'custom' }]) {
      const refused = await server.call({ method: 'PATCH', url: `/configurations/${before.id}`, token: admin, payload });
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect(await byId(before.id)).toEqual(before);

    // The stored category and description sent back with a new value are no change.
    const accepted = await server.call({
      method: 'PATCH',
      url: `/configurations/${before.id}`,
      token: admin,
      payload: { value: 'true', category: before.category, description: before.description },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(await byId(before.id)).toMatchObject({ name: before.name, value: 'true', category: before.category, description: before.description, type: 'sistema' });
  });

  test('a bulk PATCH reaching a system setting refuses a new category and changes no row; custom settings still take one', async () => {
    const custom = await created({ name: 'bulk.security.custom', value: 'x', category: 'security', description: 'mine' });
    const system = await systemSetting('outbound_allow_loopback');
    const where = q('where', { category: 'security' });
    const refused = await server.call({ method: 'PATCH', url: `/configurations?${where}`, token: admin, payload: { category: 'network', description: 'shared' } });
    expectValueOnly(refused, ['category', 'description']);
    expect(await byId(custom.id)).toEqual(custom);
    expect(await byId(system.id)).toEqual(system);

    const onlyCustom = await server.call({ method: 'PATCH', url: `/configurations?${q('where', { name: custom.name })}`, token: admin, payload: { category: 'network' } });
    expect(onlyCustom.statusCode, onlyCustom.body).toBe(200);
    expect((await byId(custom.id)).category).toBe('network');
  });
});
