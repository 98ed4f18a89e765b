import { tenantNameMaxLength } from '@voxplan/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startContext } from '../src/bootstrap.ts';
import { readIntegrations } from '../src/modules/tenants/integrations.routes.ts';
import { startTestServer, type TestServer } from './harness.ts';

interface ErrorBody {
  error: { statusCode: number; code?: string; details?: { path: string; message: string }[] };
}
interface Tenant {
  id: number;
  name: string;
  created_time: string;
}

const errorOf = (response: LightMyRequestResponse): ErrorBody['error'] => response.json<ErrorBody>().error;
/** The field names a validation error points at. */
const detailFields = (response: LightMyRequestResponse): string[] =>
  (errorOf(response).details ?? []).map((detail) => detail.path.split('.').pop() ?? '');

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const createTenant = (name: unknown) => server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } });
async function tenant(name: string): Promise<Tenant> {
  const response = await createTenant(name);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Tenant>();
}
async function userIn(tenantId: number, username: string, role: 'user' | 'guest' = 'user'): Promise<{ id: number; token: string }> {
  const password = `${username}-password-1`;
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { id: response.json<{ id: number }>().id, token: await server.login(username, password) };
}
const namesInList = async (): Promise<string[]> =>
  (await server.call({ method: 'GET', url: '/tenants', token: admin })).json<Tenant[]>().map((t) => t.name);

describe('a fresh install', () => {
  test('starts with one tenant, named in the server language, where the first user can be made at once', async () => {
    const tenants = (await server.call({ method: 'GET', url: '/tenants', token: admin })).json<Tenant[]>();
    expect(tenants.map((t) => t.name)).toEqual(['default']);
    const first = await userIn(tenants[0]!.id, 'first-user');
    expect((await server.call({ method: 'GET', url: '/destinations', token: first.token })).statusCode).toBe(200);
  });

  test('in Portuguese it is "padrão"; once removed, a restart does not bring it back', async () => {
    const pt = await startTestServer({ DEFAULT_LANGUAGE: 'pt-BR' });
    try {
      const token = await pt.login();
      const tenants = (await pt.call({ method: 'GET', url: '/tenants', token })).json<Tenant[]>();
      expect(tenants.map((t) => t.name)).toEqual(['padrão']);
      expect((await pt.call({ method: 'DELETE', url: `/tenants/${tenants[0]!.id}`, token })).statusCode).toBe(204);
      const again = await startContext(pt.config);
      await again.close();
      expect((await pt.call({ method: 'GET', url: '/tenants', token })).json<Tenant[]>()).toEqual([]);
    } finally {
      await pt.close();
    }
  });
});

describe('tenant names', () => {
  test('a name is required', async () => {
    for (const payload of [{}, { name: '' }, { name: '   ' }, { name: null }]) {
      const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      expect(detailFields(response)).toContain('name');
    }
  });

  test(`at most ${tenantNameMaxLength} characters`, async () => {
    const tooLong = await createTenant('a'.repeat(tenantNameMaxLength + 1));
    expect(tooLong.statusCode).toBe(400);
    expect(errorOf(tooLong).code).toBe('invalid_input');
    expect(detailFields(tooLong)).toContain('name');
    const longest = await createTenant('b'.repeat(tenantNameMaxLength));
    expect(longest.statusCode).toBe(201);
  });

  test('only letters, digits and -@:%._+~#=/?& are allowed', async () => {
    for (const name of ['acme corp', 'acme!', '<script>', 'semi;colon', 'quote"s', 'tab\tname', 'emoji😀']) {
      const response = await createTenant(name);
      expect(response.statusCode, name).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      expect(detailFields(response)).toContain('name');
    }
    const symbols = await tenant('a-b@c:d%e.f_g+h~i#j=k/l?m&n');
    expect(symbols.name).toBe('a-b@c:d%e.f_g+h~i#j=k/l?m&n');
    expect((await tenant('São-Paulo2')).name).toBe('são-paulo2');
  });

  test('names are stored lowercased and are unique whatever the case', async () => {
    const created = await tenant('  MegaCorp ');
    expect(created.name).toBe('megacorp');
    const stored = await server.ctx.db.selectFrom('tenants').select('name').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.name).toBe('megacorp');
    for (const name of ['megacorp', 'MEGACORP', 'MegaCorp']) {
      const duplicate = await createTenant(name);
      expect(duplicate.statusCode, name).toBe(409);
      expect(errorOf(duplicate).code).toBe('tenant_already_exists');
    }
    expect((await namesInList()).filter((name) => name === 'megacorp')).toHaveLength(1);
  });

  test('PATCH and PUT rename with the same rules', async () => {
    const { id } = await tenant('rename-me');
    await tenant('taken-name');
    const patched = await server.call({ method: 'PATCH', url: `/tenants/${id}`, token: admin, payload: { name: 'Renamed-Once' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id, name: 'renamed-once' });
    const put = await server.call({ method: 'PUT', url: `/tenants/${id}`, token: admin, payload: { name: 'RENAMED-TWICE' } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ id, name: 'renamed-twice' });
    expect((await server.call({ method: 'GET', url: `/tenants/${id}`, token: admin })).json()).toMatchObject({ name: 'renamed-twice' });

    const clash = await server.call({ method: 'PATCH', url: `/tenants/${id}`, token: admin, payload: { name: 'Taken-Name' } });
    expect(clash.statusCode).toBe(409);
    expect(errorOf(clash).code).toBe('tenant_already_exists');
    const invalid = await server.call({ method: 'PUT', url: `/tenants/${id}`, token: admin, payload: { name: 'has space' } });
    expect(invalid.statusCode).toBe(400);
    expect(errorOf(invalid).code).toBe('invalid_input');
    const unknownField = await server.call({ method: 'PATCH', url: `/tenants/${id}`, token: admin, payload: { name: 'ok', integrations: '{}' } });
    expect(unknownField.statusCode).toBe(400);
    expect(errorOf(unknownField).code).toBe('invalid_input');
    const missing = await server.call({ method: 'PATCH', url: '/tenants/999999', token: admin, payload: { name: 'ghost' } });
    expect(missing.statusCode).toBe(404);
    // Failed edits changed nothing.
    expect((await server.call({ method: 'GET', url: `/tenants/${id}`, token: admin })).json()).toMatchObject({ name: 'renamed-twice' });
  });
});

describe('removing a tenant', () => {
  const remove = (id: number, selected?: number) =>
    server.call({ method: 'DELETE', url: `/tenants/${id}`, token: admin, ...(selected !== undefined && { tenant: selected }) });

  test('a tenant nobody uses is removed', async () => {
    const { id } = await tenant('unused');
    const removed = await remove(id);
    expect(removed.statusCode).toBe(204);
    expect((await server.call({ method: 'GET', url: `/tenants/${id}`, token: admin })).statusCode).toBe(404);
    expect(await namesInList()).not.toContain('unused');
  });

  test('a tenant a user belongs to is in use until the user is gone', async () => {
    const { id } = await tenant('has-users');
    const user = await userIn(id, 'tess');
    const refused = await remove(id);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused)).toMatchObject({ code: 'tenant_in_use', message: 'This tenant is in use and cannot be removed.' });
    expect(await namesInList()).toContain('has-users');

    expect((await server.call({ method: 'DELETE', url: `/users/${user.id}`, token: admin })).statusCode).toBe(204);
    expect((await remove(id)).statusCode).toBe(204);
  });

  test('a tenant that owns a record (a destination) is in use', async () => {
    const { id } = await tenant('has-records');
    const destination = await server.call({
      method: 'POST',
      url: '/destinations',
      token: admin,
      tenant: id,
      payload: { name: 'sales', kind: 'voice', uri: 'sip:sales@example.com' },
    });
    expect(destination.statusCode, destination.body).toBe(201);
    const refused = await remove(id);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('tenant_in_use');
    expect(await namesInList()).toContain('has-records');
  });

  test("the admin's selected tenant is in use", async () => {
    const { id } = await tenant('selected-one');
    const refused = await remove(id, id);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('tenant_in_use');
    // With another tenant selected, or none, it goes.
    const other = await tenant('selected-other');
    expect((await remove(id, other.id)).statusCode).toBe(204);
  });

  test('a bulk removal with one tenant in use removes none', async () => {
    const free = await tenant('bulk-free');
    const used = await tenant('bulk-used');
    await userIn(used.id, 'ulla');
    const refused = await server.call({ method: 'DELETE', url: '/tenants', token: admin, payload: { ids: [free.id, used.id] } });
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).code).toBe('tenant_in_use');
    expect(await namesInList()).toEqual(expect.arrayContaining(['bulk-free', 'bulk-used']));
    const alone = await server.call({ method: 'DELETE', url: '/tenants', token: admin, payload: [free.id] });
    expect(alone.json()).toEqual({ count: 1 });
  });
});

describe('tenants are for admins only', () => {
  test('users and guests get 403 no_role_permission on every tenant call', async () => {
    const home = await tenant('home-tenant');
    const user = await userIn(home.id, 'uma');
    const guest = await userIn(home.id, 'gus', 'guest');
    for (const { token } of [user, guest]) {
      const calls = [
        () => server.call({ method: 'GET', url: '/tenants', token }),
        () => server.call({ method: 'GET', url: `/tenants/${home.id}`, token }),
        () => server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'mine' } }),
        () => server.call({ method: 'PATCH', url: `/tenants/${home.id}`, token, payload: { name: 'mine' } }),
        () => server.call({ method: 'DELETE', url: `/tenants/${home.id}`, token }),
        () => server.call({ method: 'GET', url: `/tenants/${home.id}/integrations`, token }),
        () => server.call({ method: 'PATCH', url: `/tenants/${home.id}/integrations`, token, payload: { openai_key: 'sk-1234567890' } }),
      ];
      for (const call of calls) {
        const response = await call();
        expect(response.statusCode, response.body).toBe(403);
        expect(errorOf(response).code).toBe('no_role_permission');
      }
    }
    expect(await namesInList()).not.toContain('mine');
  });
});

describe('integrations', () => {
  const SID = 'AC0123456789abcdef0123456789abcdef';
  const TWILIO_TOKEN = 'twilio-secret-token-9f8e7d6c';
  const OPENAI_KEY = 'sk-openai-secret-key-5a4b3c2d';
  const SIPPULSE_KEY = 'sippulse-secret-key-1q2w3e4r';

  const getIntegrations = (id: number) => server.call({ method: 'GET', url: `/tenants/${id}/integrations`, token: admin });
  const patchIntegrations = (id: number, payload: Record<string, unknown>) =>
    server.call({ method: 'PATCH', url: `/tenants/${id}/integrations`, token: admin, payload });
  const setSecondAiProvider = (isOn: boolean) =>
    server.ctx.db.updateTable('configurations').set({ value: String(isOn) }).where('name', '=', 'feature_second_ai_provider').execute();
  const stored = async (id: number): Promise<string | null> =>
    (await server.ctx.db.selectFrom('tenants').select('integrations').where('id', '=', id).executeTakeFirstOrThrow()).integrations;

  test('a new tenant has none', async () => {
    const { id } = await tenant('integrations-empty');
    const response = await getIntegrations(id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
  });

  test('secrets are encrypted at rest and come back masked, never in clear', async () => {
    const { id } = await tenant('integrations-secret');
    const saved = await patchIntegrations(id, { twilio_sid: SID, twilio_token: TWILIO_TOKEN, openai_key: OPENAI_KEY });
    expect(saved.statusCode, saved.body).toBe(200);
    const expected = { twilio_sid: SID, twilio_token: `••••${TWILIO_TOKEN.slice(-4)}`, openai_key: `••••${OPENAI_KEY.slice(-4)}` };
    expect(saved.json()).toEqual(expected);

    const read = await getIntegrations(id);
    expect(read.json()).toEqual(expected);
    for (const body of [saved.body, read.body]) {
      expect(body).not.toContain(TWILIO_TOKEN);
      expect(body).not.toContain(OPENAI_KEY);
    }

    const column = await stored(id);
    expect(column).not.toBeNull();
    for (const secret of [TWILIO_TOKEN, OPENAI_KEY]) {
      expect(column).not.toContain(secret);
      // Not even a recognisable part of it.
      expect(column).not.toContain(secret.slice(0, 12));
      expect(column).not.toContain(Buffer.from(secret).toString('base64').slice(0, 16));
    }
    expect(readIntegrations(server.ctx, column)).toEqual({ twilio_sid: SID, twilio_token: TWILIO_TOKEN, openai_key: OPENAI_KEY });

    // Neither does the audit log keep them.
    const audit = await server.call({ method: 'GET', url: '/audit', token: admin });
    expect(audit.body).toContain('tenant_integrations');
    expect(audit.body).not.toContain(TWILIO_TOKEN);
    expect(audit.body).not.toContain(OPENAI_KEY);
  });

  test('a short secret is masked without showing any of it', async () => {
    const { id } = await tenant('integrations-short');
    const saved = await patchIntegrations(id, { openai_key: 'sk-12345' });
    expect(saved.json()).toEqual({ openai_key: '••••' });
  });

  test('sending the mask back keeps the stored secret; a new value replaces it', async () => {
    const { id } = await tenant('integrations-mask');
    await patchIntegrations(id, { twilio_sid: SID, twilio_token: TWILIO_TOKEN, openai_key: OPENAI_KEY });
    const masked = (await getIntegrations(id)).json<Record<string, string>>();

    // The console sends back what it loaded, plus a newly enabled provider (offered while its setting is on).
    await setSecondAiProvider(true);
    const again = await patchIntegrations(id, { ...masked, sippulse_ai_key: SIPPULSE_KEY }).finally(() => setSecondAiProvider(false));
    expect(again.statusCode, again.body).toBe(200);
    expect(readIntegrations(server.ctx, await stored(id))).toEqual({
      twilio_sid: SID,
      twilio_token: TWILIO_TOKEN,
      openai_key: OPENAI_KEY,
      sippulse_ai_key: SIPPULSE_KEY,
    });

    const replaced = await patchIntegrations(id, { ...masked, openai_key: 'sk-brand-new-key-0000' });
    expect(replaced.json()).toMatchObject({ openai_key: '••••0000' });
    expect(readIntegrations(server.ctx, await stored(id))).toMatchObject({ twilio_token: TWILIO_TOKEN, openai_key: 'sk-brand-new-key-0000' });
  });

  test('a provider left out of the body is switched off', async () => {
    const { id } = await tenant('integrations-off');
    await patchIntegrations(id, { twilio_sid: SID, twilio_token: TWILIO_TOKEN, openai_key: OPENAI_KEY });
    const masked = (await getIntegrations(id)).json<Record<string, string>>();

    const withoutAi = await patchIntegrations(id, { twilio_sid: masked.twilio_sid, twilio_token: masked.twilio_token });
    expect(withoutAi.statusCode).toBe(200);
    expect((await getIntegrations(id)).json()).toEqual({ twilio_sid: SID, twilio_token: masked.twilio_token });
    expect(readIntegrations(server.ctx, await stored(id))).toEqual({ twilio_sid: SID, twilio_token: TWILIO_TOKEN });

    const allOff = await patchIntegrations(id, {});
    expect(allOff.statusCode).toBe(200);
    expect((await getIntegrations(id)).json()).toEqual({});
    expect(await stored(id)).toBeNull();
  });

  test('a voice provider needs its SID and its token', async () => {
    const { id } = await tenant('integrations-rules');
    const noToken = await patchIntegrations(id, { twilio_sid: SID });
    expect(noToken.statusCode).toBe(400);
    expect(errorOf(noToken).code).toBe('invalid_input');
    expect(detailFields(noToken)).toEqual(['twilio_token']);

    const noSid = await patchIntegrations(id, { twilio_token: TWILIO_TOKEN });
    expect(noSid.statusCode).toBe(400);
    expect(detailFields(noSid)).toEqual(['twilio_sid']);

    const emptyKey = await patchIntegrations(id, { openai_key: '' });
    expect(emptyKey.statusCode).toBe(400);
    expect(detailFields(emptyKey)).toEqual(['openai_key']);

    const unknown = await patchIntegrations(id, { openai_key: OPENAI_KEY, aws_key: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown).code).toBe('invalid_input');

    // A mask only stands for a secret that exists.
    const maskOfNothing = await patchIntegrations(id, { openai_key: '••••abcd' });
    expect(maskOfNothing.statusCode).toBe(400);
    expect(detailFields(maskOfNothing)).toEqual(['openai_key']);

    expect((await getIntegrations(id)).json()).toEqual({});
  });

  test('an unknown tenant answers 404', async () => {
    expect((await getIntegrations(999999)).statusCode).toBe(404);
    expect((await patchIntegrations(999999, { openai_key: OPENAI_KEY })).statusCode).toBe(404);
  });
});
