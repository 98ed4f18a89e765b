import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp, type ServerContext } from '../src/app.ts';
import { startContext } from '../src/bootstrap.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import { createAccessTokens } from '../src/lib/access-tokens.ts';
import { unlimitedTestLicenseEnv } from '../src/modules/license/test-license.ts';
import { createTestDatabase } from './postgres-server.ts';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };
export const dialect = (process.env.TEST_DIALECT ?? 'sqlite') as 'sqlite' | 'postgres';

export interface TestServer {
  app: FastifyInstance;
  ctx: ServerContext;
  config: Config;
  /** Sends a request to /api/v1 + path with an optional bearer token. */
  call(options: InjectOptions & { token?: string; tenant?: number }): Promise<LightMyRequestResponse>;
  login(username?: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

/** A real server on a fresh database of the dialect under test: SQLite file or PostgreSQL database. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-test-'));
  let dropDatabase: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  if (dialect === 'postgres') {
    const database = await createTestDatabase(inject('postgresUrl'));
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }
  const config = loadConfig({
    // Without practical limits: the licence's own tests pass LICENSE_FILE '' to see the defaults.
    ...(await unlimitedTestLicenseEnv()),
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: ADMIN.password,
    MASTER_KEY: '11'.repeat(32),
    LOG_LEVEL: 'silent',
    ...(databaseUrl && { DATABASE_URL: databaseUrl }),
    ...env,
  });
  const started = await startContext(config);
  const app = await buildApp(started.ctx, { logger: false });
  await app.ready();

  const call: TestServer['call'] = ({ token, tenant, url, headers, ...rest }) =>
    app.inject({
      ...rest,
      url: `/api/v1${url}`,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(tenant !== undefined && { 'x-tenant-id': String(tenant) }),
        ...headers,
      },
    });

  return {
    app,
    ctx: started.ctx,
    config,
    call,
    async login(username = ADMIN.username, password = ADMIN.password) {
      const response = await call({ method: 'POST', url: '/login', payload: { username, password } });
      if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
      return response.json<{ token: string }>().token;
    },
    async close() {
      await app.close();
      await started.close();
      await dropDatabase?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A server for the tests of one file, started before them with the administrator signed in, and
 * closed after them. Its fields are set once the file's beforeAll hooks run.
 */
export function serverForFile(): { server: TestServer; admin: string } {
  const suite = { server: undefined as unknown as TestServer, admin: '' };
  beforeAll(async () => {
    suite.server = await startTestServer();
    suite.admin = await suite.server.login();
  });
  afterAll(() => suite.server.close());
  return suite;
}

/** Builds the query string for a filter or where parameter, as the console sends it. */
/** The value of one sample of a Prometheus exposition, by its name and labels as written (`name{label="value"}`). */
export function sampleOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** One sample of what GET /metrics would report now, 0 while it has not been counted yet. */
export async function metricOf(server: TestServer, series: string): Promise<number> {
  return sampleOf(await server.ctx.metrics!.registry.metrics(), series) ?? 0;
}

export const q = (name: 'filter' | 'where', value: unknown): string => `${name}=${encodeURIComponent(JSON.stringify(value))}`;

export interface TenantMember {
  tenantId: number;
  userId: number;
  username: string;
  password: string;
  token: string;
}

/** A user `username` (password `<username>-password-1`) with one role in a tenant, made through the API by the administrator. */
export async function createTenantUser(server: TestServer, adminToken: string, tenantId: number, username: string, role: 'user' | 'guest'): Promise<TenantMember> {
  const password = `${username}-password-1`;
  const user = await server.call({
    method: 'POST',
    url: '/users',
    token: adminToken,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
  });
  if (user.statusCode !== 201) throw new Error(`creating user ${username} failed: ${user.statusCode} ${user.body}`);
  return { tenantId, userId: user.json<{ id: number }>().id, username, password, token: await server.login(username, password) };
}

/** A new tenant named `name` and a user `<name>-<role>` with that role in it, made through the API by the administrator. */
export async function createTenantMember(server: TestServer, adminToken: string, name: string, role: 'user' | 'guest' = 'user'): Promise<TenantMember> {
  const tenant = await server.call({ method: 'POST', url: '/tenants', token: adminToken, payload: { name } });
  if (tenant.statusCode !== 201) throw new Error(`creating tenant ${name} failed: ${tenant.statusCode} ${tenant.body}`);
  return createTenantUser(server, adminToken, tenant.json<{ id: number }>().id, `${name}-${role}`, role);
}

/**
 * An access token for the same sign-in as `token` that expires after `seconds`, signed as the
 * server signs its own: what a client holds near the end of its token's life.
 */
export function shortLivedToken(ctx: AppContext, token: string, seconds: number): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; sid: string };
  return createAccessTokens(ctx.keys.tokenKey, seconds).sign({ userId: Number(payload.sub), sessionId: payload.sid });
}

export interface ErrorBody {
  error: { statusCode: number; name?: string; message?: string; code?: string; details?: { path: string; message: string }[] };
}

export const errorOf = (response: LightMyRequestResponse): ErrorBody['error'] => response.json<ErrorBody>().error;

/** A 400 invalid_input whose details name the field (a body field by its own name) and, when given, the message. */
export function expectInvalid(response: LightMyRequestResponse, field: string, message?: string): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(errorOf(response).code).toBe('invalid_input');
  const details = errorOf(response).details ?? [];
  expect(details.map((detail) => detail.path)).toContain(field);
  if (message !== undefined) expect(details).toContainEqual({ path: field, message });
}
