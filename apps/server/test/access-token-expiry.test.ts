import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { expect, test } from 'vitest';
import { errorOf } from './auth-fixtures.ts';
import { startTestServer, type TestServer } from './harness.ts';

/**
 * An access token's life on a server of its own: it expires after ACCESS_TOKEN_TTL, and a kept-alive
 * connection that goes on presenting it is refused once it expires or its sign-in ends.
 */

/**
 * fast-jwt rounds a token's expiry down to the second, so a token of TTL seconds lives between
 * TTL − 1 and TTL: with 1 it could expire before a loaded machine's first request. Three leave two
 * seconds at least for that request, and the wait ends when the token's own expiry has passed.
 */
const shortTtl = { ACCESS_TOKEN_TTL: '3' };
const untilExpired = (token: string) => new Promise((resolve) => setTimeout(resolve, (decodeJwt(token).exp ?? 0) * 1000 - Date.now() + 100));

test('an access token expires after ACCESS_TOKEN_TTL and answers invalid_token', async () => {
  const shortLived = await startTestServer(shortTtl);
  try {
    const token = await shortLived.login();
    expect((await shortLived.call({ method: 'GET', url: '/whoami', token })).statusCode).toBe(200);
    await untilExpired(token);
    const expired = await shortLived.call({ method: 'GET', url: '/whoami', token });
    expect(expired.statusCode).toBe(401);
    expect(errorOf(expired).code).toBe('invalid_token');
  } finally {
    await shortLived.close();
  }
});

/**
 * `GET /whoami` over one kept-alive socket of a listening `server`: the server sees the same
 * header on the same connection each time, as a console's browser sends it.
 */
async function keptAliveWhoami(server: TestServer) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = server.app.server.address() as AddressInfo;
  const whoami = (token: string) =>
    new Promise<{ status: number; code: string | undefined; socket: unknown }>((resolve, reject) => {
      const request = http.get({ agent, host: '127.0.0.1', port, path: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, code: (JSON.parse(body) as { error?: { code: string } }).error?.code, socket: request.socket }));
      });
      request.on('error', reject);
    });
  return { whoami, close: () => agent.destroy() };
}

test('a kept-alive connection that goes on presenting its token is refused once the token expires', async () => {
  const shortLived = await startTestServer(shortTtl);
  const connection = await keptAliveWhoami(shortLived);
  try {
    const token = await shortLived.login();
    const first = await connection.whoami(token);
    const second = await connection.whoami(token);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.socket).toBe(first.socket);
    await untilExpired(token);
    const expired = await connection.whoami(token);
    expect(expired.socket).toBe(first.socket);
    expect([expired.status, expired.code]).toEqual([401, 'invalid_token']);
  } finally {
    connection.close();
    await shortLived.close();
  }
});

// Apart from the expiry above: a short-lived token can expire between a slow machine's sign-in and sign-out.
test('a kept-alive connection that goes on presenting its token is refused the moment its sign-in ends', async () => {
  const listening = await startTestServer();
  const connection = await keptAliveWhoami(listening);
  try {
    const kept = await listening.login();
    const token = await listening.login();
    const before = await connection.whoami(token);
    expect(before.status).toBe(200);
    expect((await connection.whoami(kept)).status).toBe(200);
    expect((await listening.call({ method: 'POST', url: '/logout', token })).statusCode).toBeLessThan(300);
    const signedOut = await connection.whoami(token);
    expect(signedOut.socket).toBe(before.socket);
    expect([signedOut.status, signedOut.code]).toEqual([401, 'token_not_found']);
    // The other sign-in, on the same connection, goes on.
    expect((await connection.whoami(kept)).status).toBe(200);
  } finally {
    connection.close();
    await listening.close();
  }
});
