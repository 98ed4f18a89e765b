import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

/**
 * Issue 13, item 3: the signed-in console could be framed by another origin, and no answer said
 * how it may be used. Every answer (the console, the API, its documentation page, an error)
 * carries helmet's security headers.
 */

let server: TestServer;
let secure: TestServer;
const consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-console-'));

beforeAll(async () => {
  fs.writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/index.js"></script>');
  fs.mkdirSync(path.join(consoleDir, 'assets'));
  fs.writeFileSync(path.join(consoleDir, 'assets', 'index.js'), 'export {};');
  server = await startTestServer({ CONSOLE_DIR: consoleDir });
  secure = await startTestServer({ CONSOLE_DIR: consoleDir, PUBLIC_URL: 'https://voxplan.example.com' });
});
afterAll(async () => {
  await server.close();
  await secure.close();
  fs.rmSync(consoleDir, { recursive: true, force: true });
});

/** The policy's directives by name. */
function policyOf(response: LightMyRequestResponse): Map<string, string[]> {
  const header = response.headers['content-security-policy'];
  expect(typeof header, 'content-security-policy').toBe('string');
  return new Map(
    String(header)
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function expectProtected(response: LightMyRequestResponse): void {
  const policy = policyOf(response);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('script-src')).toEqual(["'self'"]);
  expect(policy.get('object-src')).toEqual(["'none'"]);
  expect(policy.has('upgrade-insecure-requests')).toBe(false);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

describe('security headers', () => {
  test('the console page, its files and a client route: no inline script, never framed', async () => {
    for (const url of ['/', '/tenants', '/assets/index.js']) {
      const response = await server.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expectProtected(response);
    }
  });

  test('the API, its errors and its documentation page', async () => {
    expectProtected(await server.call({ method: 'GET', url: '/health' }));
    expectProtected(await server.call({ method: 'GET', url: '/no-such-thing' }));
    expectProtected(await server.call({ method: 'GET', url: '/whoami' }));
    const docs = await server.app.inject({ method: 'GET', url: '/api/v1/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger-ui-bundle.js');
    expect(docs.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expectProtected(docs);
    expectProtected(await server.app.inject({ method: 'GET', url: '/api/v1/docs/static/swagger-initializer.js' }));
  });

  test('HSTS only when the public address is https', async () => {
    expect((await server.call({ method: 'GET', url: '/health' })).headers['strict-transport-security']).toBeUndefined();
    expect((await secure.call({ method: 'GET', url: '/health' })).headers['strict-transport-security']).toBe('max-age=15552000');
  });
});
