import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.ts';
import { startTestServer, type TestServer } from './harness.ts';

interface ErrorBody {
  error: { statusCode: number; name: string; message: string; code?: string; details?: { path: string; message: string }[] };
}

/** An answer from inject() or read off a raw socket. */
type Answer = Pick<LightMyRequestResponse, 'statusCode' | 'body'> & { headers: Record<string, unknown> };

/** Every failure answers `{error: {statusCode, name, message, code, details?}}` and nothing else. */
function expectErrorShape(response: Answer, statusCode: number, code: string): ErrorBody['error'] {
  expect(response.statusCode, response.body).toBe(statusCode);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatchObject({ statusCode, code, name: expect.any(String), message: expect.any(String) });
  for (const key of Object.keys(body.error)) expect(['statusCode', 'name', 'message', 'code', 'details']).toContain(key);
  expect(response.body).not.toMatch(/\bat .+:\d+:\d+/);
  return body.error;
}

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

describe('client errors have the error shape', () => {
  test('details name a body field as the form does, an unknown field by its name, and other parts with their context', async () => {
    const invalid = await server.call({ method: 'POST', url: '/users', token: admin, payload: { username: 'x', password: 'short', email: 'x', name: 'X', roles: [], nickname: 'y' } });
    const paths = (expectErrorShape(invalid, 400, 'invalid_input').details ?? []).map((detail) => detail.path).sort();
    expect(paths).toEqual(['email', 'nickname', 'password', 'roles']);
    const badId = await server.call({ method: 'GET', url: '/users/abc', token: admin });
    expect((expectErrorShape(badId, 400, 'invalid_input').details ?? []).map((detail) => detail.path)).toEqual(['params.id']);
  });

  test('an unknown route is a 404 not_found, localized', async () => {
    const underApi = await server.call({ method: 'GET', url: '/no-such-thing', token: admin });
    expect(expectErrorShape(underApi, 404, 'not_found')).toEqual({
      statusCode: 404,
      name: 'NotFoundError',
      code: 'not_found',
      message: 'Record not found.',
    });
    // Without credentials too: an unknown route is not an authentication question.
    expectErrorShape(await server.call({ method: 'POST', url: '/no-such-thing', payload: {} }), 404, 'not_found');
    const pt = await server.call({ method: 'DELETE', url: '/no-such-thing', headers: { 'accept-language': 'pt-BR' } });
    expect(expectErrorShape(pt, 404, 'not_found').message).toBe('Registro não encontrado.');
  });

  test('an unknown record is a 404 not_found', async () => {
    expectErrorShape(await server.call({ method: 'GET', url: '/tenants/424242', token: admin }), 404, 'not_found');
  });

  test('a malformed JSON body is a 400 with the shape, in the caller\'s language', async () => {
    const response = await server.call({
      method: 'POST',
      url: '/tenants',
      token: admin,
      headers: { 'content-type': 'application/json', 'accept-language': 'pt-BR' },
      payload: '{"name": "acme",',
    });
    const error = expectErrorShape(response, 400, 'invalid_input');
    expect(error.name).toBe('BadRequestError');
    expect(error.message).toBe('Alguns campos são inválidos.');
    expect(error.details?.[0]?.message).toMatch(/JSON/);
    const list = await server.call({ method: 'GET', url: '/tenants', token: admin });
    // Only the tenant a fresh install starts with.
    expect(list.json<{ name: string }[]>().map((tenant) => tenant.name)).toEqual(['default']);
  });

  test('a malformed sign-in body is a 400, not a 500', async () => {
    const response = await server.call({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expectErrorShape(response, 400, 'invalid_input');
  });

  test('validation errors list each invalid field in details', async () => {
    const response = await server.call({ method: 'POST', url: '/users', token: admin, payload: { password: 'short', email: 'nope' } });
    const error = expectErrorShape(response, 400, 'invalid_input');
    expect(error.message).toBe('Some fields are invalid.');
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: expect.stringMatching(/password$/), message: expect.any(String) }),
        expect.objectContaining({ path: expect.stringMatching(/email$/), message: expect.any(String) }),
      ]),
    );
  });

  test('a body that is too large is 413 payload_too_large', async () => {
    const response = await server.call({
      method: 'POST',
      url: '/tenants',
      token: admin,
      payload: { name: 'x'.repeat(2 * 1024 * 1024) },
    });
    expectErrorShape(response, 413, 'payload_too_large');
  });

  test('a body that is not JSON is 415 unsupported_media_type', async () => {
    const response = await server.call({
      method: 'POST',
      url: '/tenants',
      token: admin,
      headers: { 'content-type': 'application/xml' },
      payload: '<name>acme</name>',
    });
    expectErrorShape(response, 415, 'unsupported_media_type');
  });

  test("an admin's tenant header must be a tenant id: 400, never a database error", async () => {
    for (const value of ['abc', '-1', '1.5', '9999999999', '99999999999']) {
      const response = await server.call({ method: 'GET', url: '/destinations', token: admin, headers: { 'x-tenant-id': value } });
      const error = expectErrorShape(response, 400, 'invalid_input');
      expect(error.details?.map((detail) => detail.path), value).toEqual(['x-tenant-id']);
    }
    // The largest id is still an id: it simply has no records.
    const largest = await server.call({ method: 'GET', url: '/destinations', token: admin, headers: { 'x-tenant-id': String(2 ** 31 - 1) } });
    expect(largest.statusCode).toBe(200);
    expect(largest.json()).toEqual([]);
  });
});

describe('requests refused before or while their body is read, over a real socket', () => {
  let port: number;
  let tenantId: number;
  beforeAll(async () => {
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
    tenantId = (await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'uploads' } })).json<{ id: number }>().id;
  });

  /**
   * Sends `head` (request line and headers, without the blank line) and `body` as bytes, as a
   * client could, and reads until the server closes. `hangUp` ends the sending side after them, as
   * a client that stops short does (Node then drops a request still being answered).
   */
  function send(head: string, body = '', hangUp = false): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => (hangUp ? socket.end(`${head}\r\n\r\n${body}`) : socket.write(`${head}\r\n\r\n${body}`)));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [top = '', ...rest] = text.split('\r\n\r\n');
        const [statusLine = '', ...headerLines] = top.split('\r\n');
        const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        resolve({ statusCode: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
      });
    });
  }

  const headers = (lines: Record<string, string | number>) =>
    Object.entries({ host: 'localhost', connection: 'close', ...lines })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
  const upload = (contentType: string, body: string, language = 'en') =>
    send(
      `POST /api/v1/audios/upload HTTP/1.1\r\n${headers({ authorization: `Bearer ${admin}`, 'x-tenant-id': tenantId, 'accept-language': language, 'content-type': contentType, 'content-length': Buffer.byteLength(body) })}`,
      body,
    );

  test('a multipart body without a boundary is a 400, not a 500', async () => {
    const error = expectErrorShape(await upload('multipart/form-data', 'name=x', 'pt-BR'), 400, 'invalid_input');
    expect(error.message).toBe('Alguns campos são inválidos.');
    expect(error.details?.[0]?.message).toMatch(/boundary/i);
  });

  test('a multipart body cut short, in a field or in the file, is a 400, not a 500', async () => {
    const field = '--XX\r\nContent-Disposition: form-data; name="name"\r\n\r\nWelcome';
    const file = '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF';
    for (const body of [field, file]) expect(expectErrorShape(await upload('multipart/form-data; boundary=XX', body), 400, 'invalid_input').details?.[0]?.message).toMatch(/end/i);
    // The server goes on answering uploads.
    expect((await upload('multipart/form-data; boundary=XX', '--XX--\r\n')).statusCode).toBe(400);
  });

  test("a 25 KB query string is a 431 in the shape, in the caller's language, as Node's parser refuses it", async () => {
    const answer = await send(`GET /api/v1/health?padding=${'a'.repeat(25_000)} HTTP/1.1\r\n${headers({ 'accept-language': 'pt-BR' })}`);
    expect(expectErrorShape(answer, 431, 'headers_too_large').message).toBe('O endereço ou os cabeçalhos da requisição são longos demais.');
    const english = await send(`GET /api/v1/health HTTP/1.1\r\n${headers({ cookie: 'c'.repeat(25_000) })}`);
    expect(expectErrorShape(english, 431, 'headers_too_large').message).toBe('The address or the headers of the request are too long.');
  });

  test('a request Node cannot parse, and a body shorter than its Content-Length, are 400 malformed_request', async () => {
    expectErrorShape(await send('HELLO'), 400, 'malformed_request');
    expectErrorShape(await send(`POST /api/v1/login HTTP/1.1\r\n${headers({ 'content-type': 'application/json', 'content-length': 'abc' })}`, '{}'), 400, 'malformed_request');
    // The client stops sending before the body it announced is complete.
    expectErrorShape(await send(`POST /api/v1/login HTTP/1.1\r\n${headers({ 'content-type': 'application/json', 'content-length': 500 })}`, '{"username":', true), 400, 'malformed_request');
  });

  test('a path that does not decode is a 400 malformed_request, localized', async () => {
    const answer = await send(`GET /api/v1/users/%E0%A4%A HTTP/1.1\r\n${headers({ authorization: `Bearer ${admin}`, 'accept-language': 'pt' })}`);
    expect(expectErrorShape(answer, 400, 'malformed_request').message).toBe('A requisição está malformada.');
  });

  test("a JSON body: malformed, empty, too large or of another type, each in the shape and the caller's language", async () => {
    const post = (contentType: string, body: string) =>
      send(`POST /api/v1/tenants HTTP/1.1\r\n${headers({ authorization: `Bearer ${admin}`, 'accept-language': 'pt-BR', 'content-type': contentType, 'content-length': Buffer.byteLength(body) })}`, body);
    expect(expectErrorShape(await post('application/json', '{"name":'), 400, 'invalid_input').message).toBe('Alguns campos são inválidos.');
    expect(expectErrorShape(await post('application/json', ''), 400, 'invalid_input').message).toBe('Alguns campos são inválidos.');
    expect(expectErrorShape(await post('application/xml', '<name/>'), 415, 'unsupported_media_type').message).toBe('O corpo da requisição deve ser JSON.');
    expect(expectErrorShape(await post('application/json', JSON.stringify({ name: 'x'.repeat(1_100_000) })), 413, 'payload_too_large').message).toBe('A requisição é grande demais.');
  });

  test('an unknown route and a method a route does not take are 404 not_found, localized', async () => {
    for (const line of ['GET /api/v1/no-such-route HTTP/1.1', 'PATCH /api/v1/health HTTP/1.1']) {
      expect(expectErrorShape(await send(`${line}\r\n${headers({ 'accept-language': 'pt-BR' })}`), 404, 'not_found').message).toBe('Registro não encontrado.');
    }
  });
});

describe('server errors never show internals', () => {
  let app: FastifyInstance;
  const leakyMessage =
    "SQLITE_ERROR: no such column: secret_column in SELECT password FROM users WHERE username = 'admin' at /work/main/apps/server/src/modules/users/users.resource.ts:42:7";

  beforeAll(async () => {
    // A second app over the same database, with routes that fail the ways real code can.
    app = await buildApp(server.ctx, { logger: false });
    app.get('/api/v1/test/throws', async () => {
      throw new Error(leakyMessage);
    });
    app.get('/api/v1/test/database', async () => {
      await sql`SELECT secret_column FROM no_such_table WHERE password = 'hunter2'`.execute(server.ctx.db);
      return { unreachable: true };
    });
    app.get('/api/v1/test/status-5xx', async () => {
      throw Object.assign(new Error(`upstream said: ${leakyMessage}`), { statusCode: 502, code: 'ECONNREFUSED' });
    });
    app.get('/api/v1/test/not-an-error', async () => {
      // Some libraries reject with plain objects.
      throw { message: leakyMessage, sql: 'SELECT 1', path: '/etc/passwd' };
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const internalError = {
    error: { statusCode: 500, name: 'InternalServerError', code: 'internal_error', message: 'An error occurred.' },
  };

  const expectNoLeak = (response: LightMyRequestResponse) => {
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual(internalError);
    for (const leak of ['SQLITE', 'SELECT', 'secret_column', 'no_such_table', 'hunter2', '/work/', '.ts', 'stack', 'passwd']) {
      expect(response.body, leak).not.toContain(leak);
    }
  };

  test('an Error with SQL and a file path in its message answers only the generic 500', async () => {
    expectNoLeak(await app.inject({ method: 'GET', url: '/api/v1/test/throws' }));
  });

  test('a real database error answers only the generic 500', async () => {
    expectNoLeak(await app.inject({ method: 'GET', url: '/api/v1/test/database' }));
  });

  test('an error carrying a 5xx status answers only the generic 500', async () => {
    expectNoLeak(await app.inject({ method: 'GET', url: '/api/v1/test/status-5xx' }));
  });

  test('a thrown non-Error answers only the generic 500', async () => {
    expectNoLeak(await app.inject({ method: 'GET', url: '/api/v1/test/not-an-error' }));
  });

  test('the generic 500 is localized', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/test/throws', headers: { 'accept-language': 'pt-BR' } });
    expect(response.json()).toEqual({ error: { ...internalError.error, message: 'Ocorreu um erro.' } });
  });

  test('the app keeps serving after a 500', async () => {
    await app.inject({ method: 'GET', url: '/api/v1/test/database' });
    const health = await app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(health.statusCode).toBe(200);
  });
});
