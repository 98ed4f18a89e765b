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
  /** A tenant made by the administrator (its token given); answers its id. */
  createTenant(adminToken: string, name: string): Promise<number>;
  /** A user with one role in a tenant, made by the administrator, and signed in. */
  createMember(adminToken: string, tenantId: number, role: 'user' | 'guest', username: string): Promise<Member>;
  close(): Promise<void>;
}

export interface Member {
  id: number;
  username: string;
  password: string;
  token: string;
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

  async function login(username = ADMIN.username, password = ADMIN.password) {
    const response = await call({ method: 'POST', url: '/login', payload: { username, password } });
    if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
    return response.json<{ token: string }>().token;
  }

  return {
    app,
    ctx: started.ctx,
    config,
    call,
    login,
    async createTenant(adminToken, name) {
      const response = await call({ method: 'POST', url: '/tenants', token: adminToken, payload: { name } });
      if (response.statusCode !== 201) throw new Error(`tenant not created: ${response.statusCode} ${response.body}`);
      return response.json<{ id: number }>().id;
    },
    async createMember(adminToken, tenantId, role, username) {
      const password = `${username}-password`;
      const response = await call({
        method: 'POST',
        url: '/users',
        token: adminToken,
        payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
      });
      if (response.statusCode !== 201) throw new Error(`user not created: ${response.statusCode} ${response.body}`);
      return { id: response.json<{ id: number }>().id, username, password, token: await login(username, password) };
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
