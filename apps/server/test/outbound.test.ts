import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundError } from '@voxplan/engine/ports';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { q, startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
let admin: string;
let target: http.Server;
let targetUrl: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  target = http.createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await server.close();
});

async function setting(name: string): Promise<{ id: number; value: string; type: string; category: string }> {
  const response = await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name } })}`, token: admin });
  expect(response.statusCode).toBe(200);
  const [found] = response.json<{ id: number; value: string; type: string; category: string }[]>();
  if (!found) throw new Error(`${name} is not seeded`);
  return found;
}

async function change(name: string, value: string): Promise<void> {
  const { id } = await setting(name);
  const response = await server.call({ method: 'PATCH', url: `/configurations/${id}`, token: admin, payload: { value } });
  expect(response.statusCode, response.body).toBe(200);
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'succeeded',
    (error: unknown) => (error instanceof OutboundError ? error.failure : error),
  );

describe('the outbound address policy follows the general settings', () => {
  test('both ranges are seeded closed, as system settings', async () => {
    expect(await setting('outbound_allow_loopback')).toMatchObject({ value: 'false', type: 'sistema', category: 'security' });
    expect(await setting('outbound_allow_private')).toMatchObject({ value: 'false', type: 'sistema', category: 'security' });
  });

  test('loopback opens and closes with its setting, without a restart', async () => {
    const request = () => server.ctx.outbound.request({ method: 'GET', url: targetUrl, timeoutMs: 5000 });
    expect(await failureOf(request())).toBe('forbidden_address');

    await change('outbound_allow_loopback', 'true');
    expect(await request()).toMatchObject({ status: 200, body: 'reached' });

    await change('outbound_allow_loopback', 'false');
    expect(await failureOf(request())).toBe('forbidden_address');
  });

  test('a connection kept while loopback was open serves no request once it is closed', async () => {
    // By name, so that only the socket's lookup can refuse it.
    const { port } = target.address() as AddressInfo;
    const request = () => server.ctx.outbound.request({ method: 'GET', url: `http://localhost:${port}/`, timeoutMs: 5000 });
    await change('outbound_allow_loopback', 'true');
    expect(await request()).toMatchObject({ status: 200, body: 'reached' });
    expect(await request()).toMatchObject({ status: 200, body: 'reached' });

    await change('outbound_allow_loopback', 'false');
    expect(await failureOf(request())).toBe('forbidden_address');
  });

  test('the private setting does not open loopback', async () => {
    await change('outbound_allow_private', 'true');
    try {
      expect(await failureOf(server.ctx.outbound.request({ method: 'GET', url: targetUrl, timeoutMs: 5000 }))).toBe('forbidden_address');
    } finally {
      await change('outbound_allow_private', 'false');
    }
  });
});
