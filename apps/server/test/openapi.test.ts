import { afterAll, beforeAll, expect, test } from 'vitest';
import { allResources } from '../src/modules/resource-registry.ts';
import { startTestServer, type TestServer } from './harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
}

test('the OpenAPI document describes every resource call, with the bodies of the shared schemas', async () => {
  const response = await server.call({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  const doc = response.json<OpenApi>();
  expect(doc.openapi).toMatch(/^3\./);
  for (const resource of allResources()) {
    const base = `/api/v1${resource.path}`;
    const writes = resource.createInput ? ['delete', 'get', 'patch', 'post'] : ['delete', 'get', 'patch'];
    expect(Object.keys(doc.paths[base] ?? {}).sort(), base).toEqual(resource.readOnly ? ['get'] : writes);
    expect(Object.keys(doc.paths[`${base}/count`] ?? {}), `${base}/count`).toEqual(['get']);
    expect(Object.keys(doc.paths[`${base}/{id}`] ?? {}).sort(), `${base}/{id}`).toEqual(resource.readOnly ? ['get'] : ['delete', 'get', 'patch', 'put']);
  }
  const tenantBody = doc.paths['/api/v1/tenants']!.post!.requestBody!.content['application/json']!.schema;
  expect(Object.keys(tenantBody.properties ?? {})).toEqual(['name', 'language', 'country', 'time_zone']);
  for (const path of [
    '/api/v1/login',
    '/api/v1/refresh',
    '/api/v1/logout',
    '/api/v1/whoami',
    '/api/v1/api-keys',
    '/api/v1/tenants/{id}/integrations',
    '/api/v1/date-ranges/{id}/status',
    '/api/v1/date-ranges/preview',
    '/api/v1/audios/upload',
    '/api/v1/audios/tts',
    '/api/v1/audios/{id}/file',
    '/api/v1/audios/voices',
    '/api/v1/audios/limits',
    '/api/v1/webhook-secret',
    '/api/v1/webhook-deliveries/{id}/redeliver',
    '/api/v1/visual-plans/{id}/document',
    '/api/v1/visual-plans/{id}/publish',
    '/api/v1/visual-plans/{id}/versions',
    '/api/v1/visual-plans/{id}/versions/{version}',
    '/api/v1/visual-plans/{id}/versions/{version}/restore',
    '/api/v1/visual-plans/{id}/save-as',
    '/api/v1/visual-plans/{id}/duplicate',
    '/api/v1/visual-plans/import',
    '/api/v1/visual-plans/{id}/export',
  ]) {
    expect(doc.paths[path], path).toBeDefined();
  }
});

test('the docs page is served', async () => {
  const page = await server.app.inject({ method: 'GET', url: '/api/v1/docs/' });
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('<div id="swagger-ui">');
});
