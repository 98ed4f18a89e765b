import { randomBytes } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sha256 } from '../src/lib/keys.ts';
import { COOKIE, createUser, errorOf, refreshSetCookie, setCookieHeaders } from './auth-fixtures.ts';
import { startTestServer, type TestServer } from './harness.ts';

/** Sign-in, refresh and sign-out on one server; the secure cookie, the limits on failures and password storage are in auth-limits.test.ts, a token's expiry in access-token-expiry.test.ts. */

describe('sign-in, refresh and sign-out', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    await createUser(server, admin, { username: 'ana', email: 'ana@example.com', password: 'ana-password-1' });
  });
  afterAll(() => server.close());

  const login = (username: string, password: string, remoteAddress?: string) =>
    server.call({ method: 'POST', url: '/login', payload: { username, password }, ...(remoteAddress && { remoteAddress }) });

  const whoami = (token: string) => server.call({ method: 'GET', url: '/whoami', token });
  const refresh = (cookie: string) => server.call({ method: 'GET', url: '/refresh', cookies: { [COOKIE]: cookie } });

  test('signs in by username and by e-mail (any case) and the token identifies the user', async () => {
    for (const username of ['ana', 'ana@example.com', 'ANA@Example.com']) {
      const response = await login(username, 'ana-password-1');
      expect(response.statusCode, `${username}: ${response.body}`).toBe(200);
      const { token } = response.json<{ token: string }>();
      const me = await whoami(token);
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ username: 'ana', email: 'ana@example.com' });
      // The access token is short-lived: 15 minutes unless configured otherwise.
      const claims = decodeJwt(token);
      expect(claims.exp! - claims.iat!).toBe(15 * 60);
    }
  });

  test("a username that looks like another user's e-mail signs in as the user with that username", async () => {
    // The e-mail owner exists first, so a lookup that takes the first match would pick the wrong account.
    const emailOwner = await createUser(server, admin, { username: 'joao', email: 'jo@example.com', password: 'joao-password-1' });
    const usernameOwner = await createUser(server, admin, { username: 'jo@example.com', email: 'other@example.com', password: 'jo-password-1' });
    for (let i = 0; i < 3; i++) {
      const response = await login('jo@example.com', 'jo-password-1');
      expect(response.statusCode, response.body).toBe(200);
      expect((await whoami(response.json<{ token: string }>().token)).json()).toMatchObject({ id: usernameOwner });
    }
    const byUsername = await login('joao', 'joao-password-1');
    expect((await whoami(byUsername.json<{ token: string }>().token)).json()).toMatchObject({ id: emailOwner });
  });

  test('a wrong password and an unknown user answer the same 401 invalid_credentials', async () => {
    const wrongPassword = await login('ana', 'not-her-password', '10.1.0.1');
    const unknownUser = await login('nobody-here', 'not-her-password', '10.1.0.2');
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownUser.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual({
      error: { statusCode: 401, name: 'UnauthorizedError', code: 'invalid_credentials', message: 'Invalid username or password.' },
    });
    expect(unknownUser.body).toBe(wrongPassword.body);
    // A failed sign-in sets no cookie at all.
    expect(setCookieHeaders(wrongPassword)).toEqual([]);
  });

  test('the refresh cookie is httpOnly, SameSite=Strict, scoped to /api/v1 and not Secure over http', async () => {
    const response = await login('ana', 'ana-password-1');
    const cookie = refreshSetCookie(response);
    expect(cookie.value.length).toBeGreaterThanOrEqual(32);
    expect(cookie.attributes.has('httponly')).toBe(true);
    expect(cookie.attributes.get('samesite')).toBe('Strict');
    expect(cookie.attributes.get('path')).toBe('/api/v1');
    expect(cookie.attributes.has('secure')).toBe(false);
    expect(Number(cookie.attributes.get('max-age'))).toBeGreaterThan(0);
    // The refresh token is only in the cookie, never in the body.
    expect(response.body).not.toContain(cookie.value);
  });

  test('refresh trades the cookie for a working token and a new cookie; once that is used, the spent cookie fails', async () => {
    const first = refreshSetCookie(await login('ana', 'ana-password-1'));
    const refreshed = await refresh(first.value);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const { token } = refreshed.json<{ token: string }>();
    expect((await whoami(token)).json()).toMatchObject({ username: 'ana' });
    const second = refreshSetCookie(refreshed);
    expect(second.value).not.toBe(first.value);
    expect(second.attributes.has('httponly')).toBe(true);
    expect(second.attributes.get('path')).toBe('/api/v1');

    expect((await refresh(second.value)).statusCode).toBe(200);
    const spent = await refresh(first.value);
    expect(spent.statusCode).toBe(401);
    expect(errorOf(spent).code).toBe('refresh_token_not_found');
  });

  test('a refresh whose answer the browser lost (a reload mid-refresh) may be retried with the spent cookie for 30 s, and only the last one', async () => {
    const signIn = await login('ana', 'ana-password-1');
    const spent = refreshSetCookie(signIn).value;
    const lost = refreshSetCookie(await refresh(spent)).value;

    // The retry keeps the sign-in: a working pair, and the successor the browser never stored is dropped.
    const retried = await refresh(spent);
    expect(retried.statusCode, retried.body).toBe(200);
    expect((await whoami(retried.json<{ token: string }>().token)).statusCode).toBe(200);
    const kept = refreshSetCookie(retried).value;
    expect((await refresh(lost)).statusCode).toBe(401);
    const next = await refresh(kept);
    expect(next.statusCode).toBe(200);

    // Once the new cookie has been used, the old one is a theft again: the whole sign-in ends.
    const reused = await refresh(spent);
    expect(reused.statusCode).toBe(401);
    expect((await refresh(refreshSetCookie(next).value)).statusCode).toBe(401);
  });

  test('past the 30 s, a spent cookie is a reuse even when its successor was never used', async () => {
    const signIn = await login('ana', 'ana-password-1');
    const spent = refreshSetCookie(signIn).value;
    const successor = refreshSetCookie(await refresh(spent)).value;
    const longAgo = new Date(Date.now() - 31_000).toISOString();
    await server.ctx.db.updateTable('refresh_tokens').set({ used_time: longAgo }).where('id', '=', sha256(spent)).execute();
    expect((await refresh(spent)).statusCode).toBe(401);
    expect((await refresh(successor)).statusCode).toBe(401);
  });

  test('refresh without a cookie, or with an unknown one, is refresh_token_not_found', async () => {
    const none = await server.call({ method: 'GET', url: '/refresh' });
    expect(none.statusCode).toBe(401);
    expect(errorOf(none).code).toBe('refresh_token_not_found');
    const unknown = await refresh(randomBytes(32).toString('base64url'));
    expect(unknown.statusCode).toBe(401);
    expect(errorOf(unknown).code).toBe('refresh_token_not_found');
    // A refused cookie is cleared, so the browser stops sending it.
    expect(refreshSetCookie(unknown).value).toBe('');
  });

  test('presenting a rotated refresh token revokes the whole sign-in, but not another sign-in of the same user', async () => {
    const signIn = await login('ana', 'ana-password-1');
    const firstAccess = signIn.json<{ token: string }>().token;
    const rotated = refreshSetCookie(signIn).value;

    const step1 = await refresh(rotated);
    const step1Access = step1.json<{ token: string }>().token;
    const step2 = await refresh(refreshSetCookie(step1).value);
    expect(step2.statusCode).toBe(200);
    const newestAccess = step2.json<{ token: string }>().token;
    const newestCookie = refreshSetCookie(step2).value;

    const otherSignIn = await login('ana', 'ana-password-1');
    const otherAccess = otherSignIn.json<{ token: string }>().token;
    const otherCookie = refreshSetCookie(otherSignIn).value;

    // Everything of this sign-in works before the reuse...
    expect((await whoami(newestAccess)).statusCode).toBe(200);

    // ...the stolen, already rotated token is presented again...
    const reuse = await refresh(rotated);
    expect(reuse.statusCode).toBe(401);
    expect(errorOf(reuse).code).toBe('refresh_token_not_found');

    // ...and then nothing descended from that sign-in works any more.
    const newestRefresh = await refresh(newestCookie);
    expect(newestRefresh.statusCode).toBe(401);
    expect(errorOf(newestRefresh).code).toBe('refresh_token_not_found');
    for (const token of [firstAccess, step1Access, newestAccess]) {
      const response = await whoami(token);
      expect(response.statusCode).toBe(401);
      expect(errorOf(response).code).toBe('token_not_found');
    }

    // The other sign-in of the same user is untouched.
    expect((await whoami(otherAccess)).statusCode).toBe(200);
    const otherRefresh = await refresh(otherCookie);
    expect(otherRefresh.statusCode).toBe(200);
  });

  test('logout revokes the sign-in: its access token and refresh cookie stop working, and the cookie is cleared', async () => {
    const signIn = await login('ana', 'ana-password-1');
    const token = signIn.json<{ token: string }>().token;
    const cookie = refreshSetCookie(signIn).value;

    const logout = await server.call({ method: 'POST', url: '/logout', token, cookies: { [COOKIE]: cookie } });
    expect(logout.statusCode).toBe(204);
    const cleared = refreshSetCookie(logout);
    expect(cleared.value).toBe('');
    expect(cleared.attributes.get('path')).toBe('/api/v1');
    const expires = cleared.attributes.get('expires');
    const maxAge = cleared.attributes.get('max-age');
    expect(maxAge === '0' || (expires !== undefined && Date.parse(expires) < Date.now())).toBe(true);

    const afterAccess = await whoami(token);
    expect(afterAccess.statusCode).toBe(401);
    expect(errorOf(afterAccess).code).toBe('token_not_found');
    const afterRefresh = await refresh(cookie);
    expect(afterRefresh.statusCode).toBe(401);
    expect(errorOf(afterRefresh).code).toBe('refresh_token_not_found');
  });

  test('logout with only the cookie (an expired or lost access token) still revokes the sign-in', async () => {
    const signIn = await login('ana', 'ana-password-1');
    const token = signIn.json<{ token: string }>().token;
    const cookie = refreshSetCookie(signIn).value;
    const logout = await server.call({
      method: 'POST',
      url: '/logout',
      headers: { authorization: 'Bearer not-a-valid-token' },
      cookies: { [COOKIE]: cookie },
    });
    expect(logout.statusCode).toBe(204);
    expect(errorOf(await whoami(token)).code).toBe('token_not_found');
    expect(errorOf(await refresh(cookie)).code).toBe('refresh_token_not_found');
  });

  test('whoami answers id, email, name and roles, and never the password', async () => {
    const response = await whoami(admin);
    expect(response.statusCode).toBe(200);
    const body = response.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      id: expect.any(Number),
      email: 'admin@example.com',
      name: 'Administrator',
      roles: [{ role: 'admin', tenant_id: null, user_id: body.id }],
    });
    expect(body).not.toHaveProperty('password');
  });

  describe('each way the Authorization header or token can be wrong', () => {
    const expectCode = async (headers: Record<string, string>, code: string) => {
      const response = await server.call({ method: 'GET', url: '/whoami', headers });
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
      expect(errorOf(response).code, JSON.stringify(headers)).toBe(code);
      expect(errorOf(response).name).toBe('UnauthorizedError');
    };
    const payloadOf = (token: string) => {
      const claims = decodeJwt(token);
      return { sid: claims.sid as string, sub: claims.sub! };
    };

    test('no header, another scheme, no token, two tokens', async () => {
      await expectCode({}, 'auth_header_not_found');
      await expectCode({ authorization: 'Basic x' }, 'auth_not_bearer');
      await expectCode({ authorization: 'Bearer' }, 'auth_header_malformed');
      await expectCode({ authorization: 'Bearer a b' }, 'auth_header_malformed');
    });

    test('the token is read however the scheme is cased and the header spaced', async () => {
      for (const authorization of [`Bearer ${admin}`, `bearer ${admin}`, ` BEARER  ${admin} `, `Bearer\t${admin}`]) {
        const response = await server.call({ method: 'GET', url: '/whoami', headers: { authorization } });
        expect(response.statusCode, JSON.stringify(authorization)).toBe(200);
      }
      await expectCode({ authorization: `Bearer ${admin} x` }, 'auth_header_malformed');
      await expectCode({ authorization: `Bearer  ${admin}\tx` }, 'auth_header_malformed');
    });

    test('a garbage token cannot be verified', async () => {
      await expectCode({ authorization: 'Bearer garbage.not.ajwt' }, 'verifying_token_error');
      await expectCode({ authorization: 'Bearer x' }, 'verifying_token_error');
    });

    test('a token signed with another key is invalid', async () => {
      const { sid, sub } = payloadOf(admin);
      const forged = await new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer('voxplan')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new Uint8Array(randomBytes(32)));
      await expectCode({ authorization: `Bearer ${forged}` }, 'invalid_token');
    });

    test('an expired token is invalid', async () => {
      const { sid, sub } = payloadOf(admin);
      const now = Math.floor(Date.now() / 1000);
      const expired = await new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer('voxplan')
        .setIssuedAt(now - 3600)
        .setExpirationTime(now - 60)
        .sign(server.ctx.keys.tokenKey);
      await expectCode({ authorization: `Bearer ${expired}` }, 'invalid_token');
    });

    test('a well-signed token of an unknown sign-in is token_not_found', async () => {
      const { sub } = payloadOf(admin);
      const orphan = await new SignJWT({ sid: 'no-such-session' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer('voxplan')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(server.ctx.keys.tokenKey);
      await expectCode({ authorization: `Bearer ${orphan}` }, 'token_not_found');
    });

    test('a token whose subject is not the user of its sign-in is refused', async () => {
      const { sid } = payloadOf(admin);
      const ana = (await whoami(await server.login('ana', 'ana-password-1'))).json<{ id: number }>().id;
      const swapped = await new SignJWT({ sid })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(ana))
        .setIssuer('voxplan')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(server.ctx.keys.tokenKey);
      await expectCode({ authorization: `Bearer ${swapped}` }, 'token_not_found');
    });
  });

  test('messages follow Accept-Language: Portuguese for pt-BR, English otherwise', async () => {
    const ask = (language: string | undefined) =>
      server.call({
        method: 'POST',
        url: '/login',
        payload: { username: 'nobody-here', password: 'whatever-1' },
        remoteAddress: '10.1.0.3',
        ...(language && { headers: { 'accept-language': language } }),
      });
    const pt = errorOf(await ask('pt-BR,pt;q=0.9,en;q=0.8'));
    const en = errorOf(await ask('en-US'));
    const fallback = errorOf(await ask(undefined));
    expect(pt).toMatchObject({ code: 'invalid_credentials', message: 'Usuário ou senha inválidos.' });
    expect(en).toMatchObject({ code: 'invalid_credentials', message: 'Invalid username or password.' });
    expect(fallback.message).toBe('Invalid username or password.');
    const header = errorOf(await server.call({ method: 'GET', url: '/whoami', headers: { 'accept-language': 'pt-BR' } }));
    expect(header).toMatchObject({ code: 'auth_header_not_found', message: 'O cabeçalho Authorization está ausente.' });
  });
});
