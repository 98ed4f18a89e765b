import http from 'node:http';
import { Readable, Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.ts';
import { startTestServer, type TestServer } from './harness.ts';

/** The app as main.ts builds it, logging at `level` into an array of parsed lines. */
async function appLoggingAt(server: TestServer, level: string, before?: (app: FastifyInstance) => void) {
  const lines: { level: number; msg: string; reqId?: string; part?: string; status?: number; route?: string; code?: string; cause?: { code?: string; message?: string }; slow?: boolean; err?: { stack?: string } }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      callback();
    },
  });
  const app = await buildApp(server.ctx, { logger: { level, stream } });
  before?.(app);
  await app.ready();
  // What the app logged while starting (such as a console not built) is not about requests.
  lines.length = 0;
  return { app, lines };
}

describe('the request log: what matters at info, one line per request', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Well above what a loaded machine's first request takes: the tests below that expect no warning
    // must not get one for a cold route; the slow route waits this long and a little more.
    server = await startTestServer({ SLOW_REQUEST_MS: '1000' });
  });
  afterAll(() => server.close());

  test('at info a successful request writes nothing, a refused or missing one writes one line', async () => {
    const { app, lines } = await appLoggingAt(server, 'info');
    expect((await app.inject({ url: '/api/v1/health' })).statusCode).toBe(200);
    expect(lines).toEqual([]);
    expect((await app.inject({ url: '/api/v1/destinations' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/v1/no-such-thing' })).statusCode).toBe(404);
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^GET \/api\/v1\/destinations 401 [\d.]+ ms$/),
      expect.stringMatching(/^GET \/api\/v1\/no-such-thing 404 [\d.]+ ms$/),
    ]);
    await app.close();
  });

  test("every line a request writes carries its request id, its child logger's lines too; a level that does not write, writes nothing", async () => {
    const { app, lines } = await appLoggingAt(server, 'info', (app) => {
      app.get('/api/v1/test/logs', async (request) => {
        request.log.debug('not at info');
        request.log.warn('the warning');
        request.log.child({ part: 'inner' }).info('the inner line');
        return { level: request.log.level };
      });
    });
    const first = await app.inject({ url: '/api/v1/test/logs' });
    expect(first.json()).toEqual({ level: 'info' });
    await app.inject({ url: '/api/v1/test/logs' });
    expect((await app.inject({ url: '/api/v1/destinations' })).statusCode).toBe(401);
    expect(lines.map(({ msg, level, part }) => ({ msg, level, part }))).toEqual([
      { msg: 'the warning', level: 40, part: undefined },
      { msg: 'the inner line', level: 30, part: 'inner' },
      { msg: 'the warning', level: 40, part: undefined },
      { msg: 'the inner line', level: 30, part: 'inner' },
      { msg: expect.stringMatching(/^GET \/api\/v1\/destinations 401/), level: 30, part: undefined },
    ]);
    const ids = lines.map((line) => line.reqId);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect([ids[0] === ids[1], ids[2] === ids[3], ids[1] !== ids[2], ids[3] !== ids[4]]).toEqual([true, true, true, true]);
    await app.close();
  });

  test('at debug every request is one line, not an incoming and a completed one', async () => {
    const { app, lines } = await appLoggingAt(server, 'debug');
    await app.inject({ url: '/api/v1/health' });
    expect(lines.filter((line) => line.msg.includes('/api/v1/health'))).toEqual([expect.objectContaining({ status: 200, level: 20 })]);
    expect(lines.some((line) => /incoming request|request completed/.test(line.msg))).toBe(false);
    await app.close();
  });

  test('a failure of the server is one line at error with its route and cause, the stack only at debug; the database away answers 503 with Retry-After', async () => {
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    const routes = (app: FastifyInstance) => {
      app.get('/api/v1/test/db-away/:id', async () => {
        throw refused();
      });
      app.get('/api/v1/test/broken', async () => {
        throw new Error('a bug');
      });
    };
    const { app, lines } = await appLoggingAt(server, 'info', routes);
    const away = await app.inject({ url: '/api/v1/test/db-away/7', headers: { 'accept-language': 'pt-BR' } });
    expect(away.statusCode).toBe(503);
    expect(away.headers['retry-after']).toBe('2');
    expect(away.json()).toEqual({
      error: { statusCode: 503, name: 'ServiceUnavailableError', code: 'database_unavailable', message: 'O serviço está indisponível por um momento; tente novamente em alguns segundos.' },
    });
    expect((await app.inject({ url: '/api/v1/test/broken' })).statusCode).toBe(500);
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, route: '/api/v1/test/db-away/:id', status: 503, code: 'database_unavailable', cause: expect.objectContaining({ code: 'ECONNREFUSED' }) }),
      expect.objectContaining({ level: 50, route: '/api/v1/test/broken', status: 500, code: 'internal_error', cause: expect.objectContaining({ message: 'a bug' }) }),
    ]);
    expect(lines.some((line) => line.err?.stack !== undefined)).toBe(false);
    await app.close();

    const debug = await appLoggingAt(server, 'debug', routes);
    await debug.app.inject({ url: '/api/v1/test/broken' });
    expect(debug.lines.filter((line) => line.err?.stack?.includes('a bug'))).toEqual([expect.objectContaining({ level: 20 })]);
    await debug.app.close();
  });

  test('a request slower than SLOW_REQUEST_MS is a warning, whatever its status', async () => {
    const { app, lines } = await appLoggingAt(server, 'info', (app) =>
      app.get('/api/v1/test/slow', async () => {
        await new Promise((resolve) => setTimeout(resolve, server.config.slowRequestMs + 50));
        return { ok: true };
      }),
    );
    expect((await app.inject({ url: '/api/v1/test/slow' })).statusCode).toBe(200);
    expect(lines).toEqual([expect.objectContaining({ level: 40, slow: true, status: 200, msg: expect.stringMatching(/ \(slow: over \d+ ms\)$/) })]);
    await app.close();
  });

  test('a client that goes away mid-answer (a browser closing a page) is a debug line, not an info one', async () => {
    // An answer that never ends, as a live feed's; Fastify notices the client leaving through its stream.
    const { app, lines } = await appLoggingAt(server, 'debug', (app) =>
      app.get('/endless', (_request, reply) => reply.type('text/plain').send(new Readable({ read() { this.push('tick\n'); } }))),
    );
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    // The page goes away once the answer has begun (fetch's pooled socket would outlive the test: node:http's is destroyed).
    await new Promise<void>((resolve, reject) => {
      const request = http.get(`${address}/endless`, (response) =>
        response.once('data', () => {
          request.destroy();
          resolve();
        }),
      );
      request.once('error', reject);
    });
    await expect.poll(() => lines.find((line) => line.msg.includes('stream closed prematurely'))).toBeDefined();
    expect(lines.filter((line) => line.msg.includes('stream closed prematurely')).map((line) => line.level)).toEqual([20]);
    await app.close();
  });
});
