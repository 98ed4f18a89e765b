import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN, startTestServer, type TestServer } from './harness.ts';

interface ErrorBody {
  error: { statusCode: number; code?: string; message: string; details?: { path: string; message: string }[] };
}
interface Role {
  id: number;
  role: 'admin' | 'user' | 'guest';
  tenant_id: number | null;
  user_id: number;
}
interface User {
  id: number;
  username: string;
  email: string;
  name: string;
  roles: Role[];
}

const errorOf = (response: LightMyRequestResponse): ErrorBody['error'] => response.json<ErrorBody>().error;
/** The field each detail points at. */
const detailFields = (response: LightMyRequestResponse): string[] =>
  (errorOf(response).details ?? []).map((detail) => detail.path.split('.').pop() ?? '');

let server: TestServer;
let admin: string;
let adminId: number;
let tenantA: number;
let tenantB: number;
let counter = 0;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  adminId = (await server.call({ method: 'GET', url: '/whoami', token: admin })).json<User>().id;
  tenantA = (await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'tenant-a' } })).json<{ id: number }>().id;
  tenantB = (await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'tenant-b' } })).json<{ id: number }>().id;
});
afterAll(() => server.close());

/** A valid new-user body with unique names; override any field. */
function newUser(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    username: `person${counter}`,
    password: 'a-good-password',
    email: `person${counter}@example.com`,
    name: `Person ${counter}`,
    roles: [{ role: 'user', tenant_id: tenantA }],
    ...overrides,
  };
}
const postUser = (payload: Record<string, unknown>, token = admin) => server.call({ method: 'POST', url: '/users', token, payload });
async function created(payload: Record<string, unknown>): Promise<User> {
  const response = await postUser(payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<User>();
}
const userCount = async (): Promise<number> =>
  (await server.call({ method: 'GET', url: '/users/count', token: admin })).json<{ count: number }>().count;

describe('creating users', () => {
  test('the roles list is stored as sent, with the tenant of each role', async () => {
    const body = newUser({ roles: [{ role: 'user', tenant_id: tenantA }, { role: 'guest', tenant_id: tenantB }] });
    const user = await created(body);
    expect(user).toMatchObject({ username: body.username, email: body.email, name: body.name });
    expect(user.roles.map(({ role, tenant_id, user_id }) => ({ role, tenant_id, user_id }))).toEqual([
      { role: 'user', tenant_id: tenantA, user_id: user.id },
      { role: 'guest', tenant_id: tenantB, user_id: user.id },
    ]);
    const fetched = await server.call({ method: 'GET', url: `/users/${user.id}`, token: admin });
    expect(fetched.json()).toEqual(user);
    // The new user works in the tenant of the first role.
    const token = await server.login(body.username as string, 'a-good-password');
    const me = await server.call({ method: 'GET', url: '/whoami', token });
    expect(me.json<User>().roles[0]).toMatchObject({ role: 'user', tenant_id: tenantA });
  });

  test('an admin role has no tenant, whatever the form sends', async () => {
    const user = await created(newUser({ roles: [{ role: 'admin', tenant_id: tenantA }] }));
    expect(user.roles).toEqual([{ id: expect.any(Number), role: 'admin', tenant_id: null, user_id: user.id }]);
    const row = await server.ctx.db.selectFrom('user_roles').select('tenant_id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.tenant_id).toBeNull();
  });

  test('a user or guest without a tenant is refused with no_tenant_provided, and nothing is created', async () => {
    const before = await userCount();
    for (const roles of [[{ role: 'user' }], [{ role: 'guest', tenant_id: null }], [{ role: 'admin' }, { role: 'user' }]]) {
      const response = await postUser(newUser({ roles }));
      expect(response.statusCode, JSON.stringify(roles)).toBe(400);
      expect(errorOf(response).code).toBe('no_tenant_provided');
    }
    expect(await userCount()).toBe(before);
  });

  test('a tenant that does not exist is refused', async () => {
    const response = await postUser(newUser({ roles: [{ role: 'user', tenant_id: 999999 }] }));
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('tenant_not_found');
  });

  test('each invalid field is named: short password, bad e-mail, missing username and name', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [newUser({ password: 'short7!' }), 'password'],
      [newUser({ email: 'not-an-email' }), 'email'],
      [newUser({ email: 'a@b' }), 'email'],
      [newUser({ username: undefined }), 'username'],
      [newUser({ username: '' }), 'username'],
      [newUser({ name: undefined }), 'name'],
      [newUser({ name: '   ' }), 'name'],
      [newUser({ roles: [] }), 'roles'],
    ];
    for (const [body, field] of cases) {
      const response = await postUser(body);
      expect(response.statusCode, field).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
      expect(detailFields(response), field).toContain(field);
    }
    const everything = await postUser({ password: 'short', email: 'nope', roles: [{ role: 'user', tenant_id: tenantA }] });
    expect(detailFields(everything)).toEqual(expect.arrayContaining(['password', 'email', 'username', 'name']));
  });

  test('unknown fields are refused, naming the field', async () => {
    const before = await userCount();
    const response = await postUser(newUser({ is_superuser: true }));
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('invalid_input');
    expect(JSON.stringify(errorOf(response).details)).toContain('is_superuser');
    expect(await userCount()).toBe(before);
  });

  test('a taken e-mail (in any case) is email_exists; a taken username is username_exists', async () => {
    const first = await created(newUser());
    const sameEmail = await postUser(newUser({ email: (first.email as string).toUpperCase() }));
    expect(sameEmail.statusCode).toBe(409);
    expect(errorOf(sameEmail)).toMatchObject({ code: 'email_exists', message: 'This e-mail is already in use.' });
    const sameUsername = await postUser(newUser({ username: first.username }));
    expect(sameUsername.statusCode).toBe(409);
    expect(errorOf(sameUsername).code).toBe('username_exists');

    const other = await created(newUser());
    const patched = await server.call({ method: 'PATCH', url: `/users/${other.id}`, token: admin, payload: { email: first.email } });
    expect(patched.statusCode).toBe(409);
    expect(errorOf(patched).code).toBe('email_exists');
  });
});

describe('editing and removing users', () => {
  test('an admin changes roles and password; the new password signs in', async () => {
    const user = await created(newUser());
    const patched = await server.call({
      method: 'PATCH',
      url: `/users/${user.id}`,
      token: admin,
      payload: { roles: [{ role: 'guest', tenant_id: tenantB }], password: 'another-password' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json<User>().roles).toEqual([{ id: expect.any(Number), role: 'guest', tenant_id: tenantB, user_id: user.id }]);
    await expect(server.login(user.username, 'a-good-password')).rejects.toThrow(/401/);
    expect(await server.login(user.username, 'another-password')).toEqual(expect.any(String));
  });

  test('an edit that fails changes nothing: roles without a tenant, a taken username', async () => {
    const user = await created(newUser());
    const noTenant = await server.call({
      method: 'PATCH',
      url: `/users/${user.id}`,
      token: admin,
      payload: { name: 'Changed', roles: [{ role: 'guest' }] },
    });
    expect(noTenant.statusCode).toBe(400);
    expect(errorOf(noTenant).code).toBe('no_tenant_provided');
    const takenUsername = await server.call({ method: 'PATCH', url: `/users/${user.id}`, token: admin, payload: { username: ADMIN.username } });
    expect(takenUsername.statusCode).toBe(409);
    expect(errorOf(takenUsername).code).toBe('username_exists');
    const after = await server.call({ method: 'GET', url: `/users/${user.id}`, token: admin });
    expect(after.json()).toMatchObject({ name: user.name, username: user.username, roles: [{ role: 'user', tenant_id: tenantA }] });
  });

  test('an admin cannot remove themselves, alone or in a bulk delete', async () => {
    const alone = await server.call({ method: 'DELETE', url: `/users/${adminId}`, token: admin });
    expect(alone.statusCode).toBe(409);
    expect(errorOf(alone)).toMatchObject({ code: 'cannot_remove_self', message: 'You cannot remove yourself.' });

    const other = await created(newUser());
    const bulk = await server.call({ method: 'DELETE', url: '/users', token: admin, payload: { ids: [other.id, adminId] } });
    expect(bulk.statusCode).toBe(409);
    expect(errorOf(bulk).code).toBe('cannot_remove_self');
    // Nothing was removed: neither the admin nor the other user.
    expect((await server.call({ method: 'GET', url: `/users/${other.id}`, token: admin })).statusCode).toBe(200);
    expect((await server.call({ method: 'GET', url: '/whoami', token: admin })).statusCode).toBe(200);

    const removed = await server.call({ method: 'DELETE', url: `/users/${other.id}`, token: admin });
    expect(removed.statusCode).toBe(204);
    expect((await server.call({ method: 'GET', url: `/users/${other.id}`, token: admin })).statusCode).toBe(404);
  });

  test("another admin can be removed, and the removed user's sessions end", async () => {
    const body = newUser({ roles: [{ role: 'admin' }] });
    const other = await created(body);
    const token = await server.login(body.username as string, 'a-good-password');
    // The other admin cannot remove themselves either.
    const self = await server.call({ method: 'DELETE', url: `/users/${other.id}`, token });
    expect(errorOf(self).code).toBe('cannot_remove_self');
    expect((await server.call({ method: 'DELETE', url: `/users/${other.id}`, token: admin })).statusCode).toBe(204);
    const after = await server.call({ method: 'GET', url: '/whoami', token });
    expect(after.statusCode).toBe(401);
    expect(errorOf(after).code).toBe('token_not_found');
  });
});

describe('users are for admins only', () => {
  test('users and guests get 403 no_role_permission', async () => {
    const userBody = newUser();
    const guestBody = newUser({ roles: [{ role: 'guest', tenant_id: tenantA }] });
    const target = await created(userBody);
    await created(guestBody);
    for (const body of [userBody, guestBody]) {
      const token = await server.login(body.username as string, 'a-good-password');
      const calls = [
        () => server.call({ method: 'GET', url: '/users', token }),
        () => server.call({ method: 'GET', url: '/users/count', token }),
        () => server.call({ method: 'GET', url: `/users/${target.id}`, token }),
        () => postUser(newUser(), token),
        () => server.call({ method: 'PATCH', url: `/users/${target.id}`, token, payload: { roles: [{ role: 'admin' }] } }),
        () => server.call({ method: 'DELETE', url: `/users/${adminId}`, token }),
      ];
      for (const call of calls) {
        const response = await call();
        expect(response.statusCode, response.body).toBe(403);
        expect(errorOf(response).code).toBe('no_role_permission');
      }
    }
    const admins = await server.call({ method: 'GET', url: `/users/${target.id}`, token: admin });
    expect(admins.json<User>().roles[0]!.role).toBe('user');
  });

  test('the admin lists users with their roles', async () => {
    const response = await server.call({ method: 'GET', url: '/users', token: admin });
    expect(response.statusCode).toBe(200);
    const users = response.json<User[]>();
    expect(users.find((user) => user.id === adminId)).toMatchObject({ username: ADMIN.username, roles: [{ role: 'admin', tenant_id: null }] });
    for (const user of users) expect(user).not.toHaveProperty('password');
  });
});

describe('my account', () => {
  async function signedIn(role: 'user' | 'guest' = 'user'): Promise<{ user: User; token: string; password: string }> {
    const user = await created(newUser({ roles: [{ role, tenant_id: tenantA }] }));
    return { user, token: await server.login(user.username, 'a-good-password'), password: 'a-good-password' };
  }

  test('whoami answers id, email, name and roles', async () => {
    const { user, token } = await signedIn();
    const response = await server.call({ method: 'GET', url: '/whoami', token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: user.id,
      email: user.email,
      name: user.name,
      username: user.username,
      roles: [{ id: expect.any(Number), role: 'user', tenant_id: tenantA, user_id: user.id }],
    });
  });

  test('PATCH /me changes my name and e-mail, for a guest too', async () => {
    for (const role of ['user', 'guest'] as const) {
      const { user, token } = await signedIn(role);
      const email = `renamed-${user.id}@example.com`;
      const response = await server.call({ method: 'PATCH', url: '/me', token, payload: { name: 'New Name', email: email.toUpperCase() } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: user.id, name: 'New Name', email });
      expect((await server.call({ method: 'GET', url: '/whoami', token })).json()).toMatchObject({ name: 'New Name', email });
      // The new e-mail signs in.
      expect(await server.login(email, 'a-good-password')).toEqual(expect.any(String));
    }
  });

  test('PATCH /me refuses a bad e-mail, a taken e-mail, and anything beyond name and e-mail', async () => {
    const { user, token } = await signedIn('guest');
    const bad = await server.call({ method: 'PATCH', url: '/me', token, payload: { email: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(detailFields(bad)).toContain('email');
    const someoneElse = await created(newUser());
    const taken = await server.call({ method: 'PATCH', url: '/me', token, payload: { email: someoneElse.email.toUpperCase() } });
    expect(taken.statusCode).toBe(409);
    expect(errorOf(taken).code).toBe('email_exists');
    for (const payload of [{ roles: [{ role: 'admin' }] }, { password: 'sneaky-password' }, { username: 'root' }]) {
      const response = await server.call({ method: 'PATCH', url: '/me', token, payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_input');
    }
    const me = (await server.call({ method: 'GET', url: '/whoami', token })).json<User>();
    expect(me).toMatchObject({ username: user.username, email: user.email, roles: [{ role: 'guest', tenant_id: tenantA }] });
    expect(await server.login(user.username, 'a-good-password')).toEqual(expect.any(String));
  });

  test('changing my password: wrong current, mismatch, too short, then success', async () => {
    const { user, token, password } = await signedIn();
    const change = (payload: Record<string, string>) => server.call({ method: 'POST', url: '/me/password', token, payload });

    const wrong = await change({ current_password: 'not-my-password', password: 'next-password-1', confirmation: 'next-password-1' });
    expect(wrong.statusCode).toBe(400);
    expect(errorOf(wrong)).toMatchObject({ code: 'wrong_password', message: 'The current password is wrong.' });

    const mismatch = await change({ current_password: password, password: 'next-password-1', confirmation: 'next-password-2' });
    expect(mismatch.statusCode).toBe(400);
    expect(errorOf(mismatch).code).toBe('passwords_do_not_match');

    const short = await change({ current_password: password, password: 'short', confirmation: 'short' });
    expect(short.statusCode).toBe(400);
    expect(errorOf(short).code).toBe('invalid_input');
    expect(detailFields(short)).toContain('password');

    // None of the failures changed anything.
    expect(await server.login(user.username, password)).toEqual(expect.any(String));

    const ok = await change({ current_password: password, password: 'next-password-1', confirmation: 'next-password-1' });
    expect(ok.statusCode).toBe(204);
    expect(await server.login(user.username, 'next-password-1')).toEqual(expect.any(String));
    const old = await server.call({ method: 'POST', url: '/login', payload: { username: user.username, password } });
    expect(old.statusCode).toBe(401);
    expect(errorOf(old).code).toBe('invalid_credentials');
  });

  test('changing my password ends my other sign-ins and keeps this one', async () => {
    const { user, token, password } = await signedIn();
    const elsewhere = await server.login(user.username, password);
    const ok = await server.call({
      method: 'POST',
      url: '/me/password',
      token,
      payload: { current_password: password, password: 'next-password-9', confirmation: 'next-password-9' },
    });
    expect(ok.statusCode).toBe(204);
    expect((await server.call({ method: 'GET', url: '/whoami', token })).statusCode).toBe(200);
    const other = await server.call({ method: 'GET', url: '/whoami', token: elsewhere });
    expect(other.statusCode).toBe(401);
    expect(errorOf(other).code).toBe('token_not_found');
  });

  test('a guest may change their own password', async () => {
    const { user, token, password } = await signedIn('guest');
    const ok = await server.call({
      method: 'POST',
      url: '/me/password',
      token,
      payload: { current_password: password, password: 'guest-password-2', confirmation: 'guest-password-2' },
    });
    expect(ok.statusCode).toBe(204);
    expect(await server.login(user.username, 'guest-password-2')).toEqual(expect.any(String));
  });
});
