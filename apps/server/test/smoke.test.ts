import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test('health, login and tenants', async () => {
  expect((await server.call({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok' });
  const token = await server.login();
  const created = await server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'Acme' } });
  expect(created.statusCode, created.body).toBe(201);
  expect(created.json()).toMatchObject({ name: 'acme' });
  const list = await server.call({ method: 'GET', url: '/tenants', token });
  // Beside the tenant a fresh install starts with.
  expect(list.json()).toHaveLength(2);
});

test('system info answers what the server runs on, to signed-in users only', async () => {
  expect((await server.call({ method: 'GET', url: '/system/info' })).statusCode).toBe(401);
  const token = await server.login();
  const info = await server.call({ method: 'GET', url: '/system/info', token });
  expect(info.statusCode).toBe(200);
  const body = info.json<Record<string, unknown>>();
  expect(body.ram_gib).toBeGreaterThan(0);
  expect(body.ram_free_gib).toBeLessThanOrEqual(body.ram_gib as number);
  expect(body.processor).toMatch(/cores/);
  expect(Date.parse(body.server_time as string)).toBeGreaterThan(Date.now() - 60_000);
});
