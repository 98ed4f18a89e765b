import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../src/app.ts';
import { startContext } from '../src/bootstrap.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import { createTestDatabase } from './postgres-server.ts';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };
export const dialect = (process.env.TEST_DIALECT ?? 'sqlite') as 'sqlite' | 'postgres';

export interface TestServer {
  app: FastifyInstance;
  ctx: AppContext;
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

/** Builds the query string for a filter or where parameter, as the console sends it. */
export const q = (name: 'filter' | 'where', value: unknown): string => `${name}=${encodeURIComponent(JSON.stringify(value))}`;

/** A new tenant and a user with the role in it, made by the administrator; with the user's token. */
export async function tenantWithMember(
  server: TestServer,
  adminToken: string,
  name: string,
  role: 'user' | 'guest' = 'user',
): Promise<{ tenantId: number; username: string; password: string; token: string }> {
  const tenant = await server.call({ method: 'POST', url: '/tenants', token: adminToken, payload: { name } });
  if (tenant.statusCode !== 201) throw new Error(`tenant not created: ${tenant.statusCode} ${tenant.body}`);
  const tenantId = tenant.json<{ id: number }>().id;
  const username = `${name}-${role}`;
  const password = `${username}-password-1`;
  const user = await server.call({
    method: 'POST',
    url: '/users',
    token: adminToken,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
  });
  if (user.statusCode !== 201) throw new Error(`user not created: ${user.statusCode} ${user.body}`);
  return { tenantId, username, password, token: await server.login(username, password) };
}
