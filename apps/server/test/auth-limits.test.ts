import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COOKIE, createUser, errorOf, refreshSetCookie, setCookieHeaders } from './auth-fixtures.ts';
import { ADMIN, startTestServer, type TestServer } from './harness.ts';

/** The refresh cookie behind https, the limits on failed sign-ins, and how passwords are stored: each on a server of its own. */

describe('secure cookie behind https', () => {
  test('the refresh cookie is Secure when PUBLIC_URL is https', async () => {
    const server = await startTestServer({ PUBLIC_URL: 'https://x.example' });
    try {
      const response = await server.call({ method: 'POST', url: '/login', payload: ADMIN });
      expect(response.statusCode).toBe(200);
      const cookie = refreshSetCookie(response);
      expect(cookie.attributes.has('secure')).toBe(true);
      expect(cookie.attributes.has('httponly')).toBe(true);
      expect(cookie.attributes.get('samesite')).toBe('Strict');
      const refreshed = await server.call({ method: 'GET', url: '/refresh', cookies: { [COOKIE]: cookie.value } });
      expect(refreshSetCookie(refreshed).attributes.has('secure')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('failed sign-ins are limited per user and per address', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer({ LOGIN_MAX_FAILURES_PER_USER: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '5' });
    admin = await server.login();
    for (const name of ['bia', 'caio', 'duda', 'enzo', 'fabi', 'gil']) {
      await createUser(server, admin, { username: name, email: `${name}@example.com`, password: `${name}-password-1` });
    }
  });
  afterAll(() => server.close());

  const attempt = (username: string, password: string, remoteAddress: string) =>
    server.call({ method: 'POST', url: '/login', payload: { username, password }, remoteAddress });

  test('after N failures the user is refused with 429 even with the right password, from any address', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await attempt('bia', 'wrong-password', '10.2.0.1')).statusCode).toBe(401);
    }
    const right = await attempt('bia', 'bia-password-1', '10.2.0.1');
    expect(right.statusCode).toBe(429);
    expect(errorOf(right)).toMatchObject({ statusCode: 429, code: 'too_many_attempts' });
    expect(setCookieHeaders(right)).toEqual([]);
    expect((await attempt('bia', 'bia-password-1', '10.2.0.99')).statusCode).toBe(429);
    // Other users are not affected by bia's count.
    expect((await attempt('gil', 'gil-password-1', '10.2.0.98')).statusCode).toBe(200);
  });

  test('the per-user count covers the username and the e-mail alike', async () => {
    expect((await attempt('caio', 'wrong-password', '10.3.0.1')).statusCode).toBe(401);
    expect((await attempt('caio', 'wrong-password', '10.3.0.2')).statusCode).toBe(401);
    expect((await attempt('caio@example.com', 'wrong-password', '10.3.0.3')).statusCode).toBe(401);
    expect((await attempt('caio', 'caio-password-1', '10.3.0.4')).statusCode).toBe(429);
    expect((await attempt('caio@example.com', 'caio-password-1', '10.3.0.5')).statusCode).toBe(429);
  });

  test('after the address limit another user from the same address is refused too', async () => {
    // Five failures from one address, spread so that no single user reaches its own limit.
    for (const username of ['duda', 'duda', 'enzo', 'enzo', 'nobody']) {
      expect((await attempt(username, 'wrong-password', '10.4.0.1')).statusCode).toBe(401);
    }
    const sameAddress = await attempt('fabi', 'fabi-password-1', '10.4.0.1');
    expect(sameAddress.statusCode).toBe(429);
    expect(errorOf(sameAddress).code).toBe('too_many_attempts');
    // The same users from another address are fine: neither reached the per-user limit.
    expect((await attempt('fabi', 'fabi-password-1', '10.4.0.2')).statusCode).toBe(200);
    expect((await attempt('duda', 'duda-password-1', '10.4.0.2')).statusCode).toBe(200);
  });

  test('a successful sign-in resets the per-user count', async () => {
    for (let i = 0; i < 2; i++) expect((await attempt('gil', 'wrong-password', '10.5.0.1')).statusCode).toBe(401);
    expect((await attempt('gil', 'gil-password-1', '10.5.0.2')).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await attempt('gil', 'wrong-password', '10.5.0.3')).statusCode).toBe(401);
    // Four failures in all, but never three in a row since the last success.
    expect((await attempt('gil', 'gil-password-1', '10.5.0.4')).statusCode).toBe(200);
  });
});

describe('password storage', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('passwords are stored as argon2id at the OWASP parameters and no endpoint returns them', async () => {
    const admin = await server.login();
    const created = await server.call({
      method: 'POST',
      url: '/users',
      token: admin,
      payload: { username: 'hugo', email: 'hugo@example.com', password: 'hugo-password-1', name: 'Hugo', roles: [{ role: 'admin' }] },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: number }>().id;
    const changed = await server.call({
      method: 'POST',
      url: '/me/password',
      token: await server.login('hugo', 'hugo-password-1'),
      payload: { current_password: 'hugo-password-1', password: 'hugo-password-2', confirmation: 'hugo-password-2' },
    });
    expect(changed.statusCode).toBe(204);

    const rows = await server.ctx.db.selectFrom('users').select(['username', 'password']).execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(row.password).not.toContain('password');
    }
    const hugoHash = rows.find((row) => row.username === 'hugo')!.password;

    const token = await server.login('hugo', 'hugo-password-2');
    const userAnswers = [
      created,
      await server.call({ method: 'GET', url: '/whoami', token }),
      await server.call({ method: 'PATCH', url: '/me', token, payload: { name: 'Hugo H' } }),
      await server.call({ method: 'GET', url: '/users', token }),
      await server.call({ method: 'GET', url: `/users/${id}`, token }),
      await server.call({ method: 'PATCH', url: `/users/${id}`, token: admin, payload: { password: 'hugo-password-3' } }),
    ];
    // The new password signs out whoever knew the old one.
    expect((await server.call({ method: 'GET', url: '/whoami', token })).statusCode).toBe(401);
    expect((await server.call({ method: 'GET', url: '/whoami', token: await server.login('hugo', 'hugo-password-3') })).statusCode).toBe(200);
    // The audit log records password changes, masked.
    const audit = await server.call({ method: 'GET', url: '/audit', token: admin });
    for (const response of [...userAnswers, audit]) {
      expect(response.statusCode, response.body).toBeLessThan(300);
      expect(response.body).not.toContain('$argon2');
      expect(response.body).not.toContain(hugoHash);
      expect(response.body).not.toMatch(/hugo-password-\d/);
    }
    for (const response of userAnswers) expect(response.body).not.toContain('"password"');
  });

  test('an administrator setting their own password on the users page stays signed in there, and only there', async () => {
    const admin = await server.login();
    const created = await server.call({
      method: 'POST',
      url: '/users',
      token: admin,
      payload: { username: 'iris', email: 'iris@example.com', password: 'iris-password-1', name: 'Iris', roles: [{ role: 'admin' }] },
    });
    const id = created.json<{ id: number }>().id;
    const here = await server.login('iris', 'iris-password-1');
    const elsewhere = await server.login('iris', 'iris-password-1');
    const changed = await server.call({ method: 'PATCH', url: `/users/${id}`, token: here, payload: { password: 'iris-password-2' } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await server.call({ method: 'GET', url: '/whoami', token: here })).statusCode).toBe(200);
    expect((await server.call({ method: 'GET', url: '/whoami', token: elsewhere })).statusCode).toBe(401);
  });
});
