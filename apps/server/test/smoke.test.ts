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
  expect(list.json()).toHaveLength(1);
});
