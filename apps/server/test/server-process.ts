/**
 * The server as `npm start` runs it (apps/server/src/main.ts), in a child process, for the tests
 * that need real processes: shutdown signals, several instances on one database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { type Config, loadConfig } from '../src/config.ts';
import { unlimitedTestLicenseEnv } from '../src/modules/license/test-license.ts';
import { ADMIN, dialect } from './harness.ts';
import { createTestDatabase } from './postgres-server.ts';

const serverEntry = path.resolve(import.meta.dirname, '../src/main.ts');
export const builtEntry = path.resolve(import.meta.dirname, '../dist/main.js');
const hardwareIdPreload = path.resolve(import.meta.dirname, 'hardware-id-preload.ts');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** `body`: JSON, or text sent as it is (give its content-type in `headers`). */
export function request(agent: http.Agent, port: number, method: string, urlPath: string, body?: unknown, token?: string, headers: Record<string, string> = {}) {
  const isJson = body !== undefined && typeof body !== 'string';
  const allHeaders = { ...(isJson && { 'content-type': 'application/json' }), ...(token && { authorization: `Bearer ${token}` }), ...headers };
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ agent, host: '127.0.0.1', port, method, path: urlPath, headers: allHeaders }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(isJson ? JSON.stringify(body) : body);
  });
}

export type ApiCall = <T>(method: string, urlPath: string, body?: unknown, token?: string, headers?: Record<string, string>) => Promise<T>;

/** Calls to /api/v1 of the server process that must succeed; answers the JSON body. */
export function apiOf(agent: http.Agent, port: number): ApiCall {
  return async <T>(method: string, urlPath: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<T> => {
    const answer = await request(agent, port, method, `/api/v1${urlPath}`, body, token, headers);
    expect(answer.status, answer.body).toBeLessThan(300);
    return JSON.parse(answer.body) as T;
  };
}

/** A tenant and a member of it, made through the API of the server process. */
export async function createTenantMemberOver(call: ApiCall, adminToken: string, name: string) {
  const tenant = await call<{ id: number }>('POST', '/tenants', { name }, adminToken);
  const member = { username: `${name}-user`, password: `${name}-password-1` };
  await call('POST', '/users', { ...member, email: `${name}@example.com`, name, roles: [{ role: 'user', tenant_id: tenant.id }] }, adminToken);
  return { tenantId: tenant.id, ...(await call<{ token: string }>('POST', '/login', member)) };
}

export interface ServerProcess {
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  exited: Promise<number | null>;
  agent: http.Agent;
  port: number;
  config: Config;
  call: ApiCall;
}

export type Cleanups = (() => Promise<void> | void)[];

/**
 * Starts the server in a child process and waits until it answers. Without DATA_DIR (and, on
 * PostgreSQL, DATABASE_URL) in `extraEnv` it gets fresh ones; pass another process's to run a
 * second instance on the same database; TEST_HARDWARE_ID makes it report that hardware id. What
 * to undo is pushed on `cleanups`.
 */
export async function startServerProcess(cleanups: Cleanups, extraEnv: NodeJS.ProcessEnv = {}, options: { built?: boolean } = {}): Promise<ServerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(await unlimitedTestLicenseEnv()), ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...extraEnv };
  if (!env.DATA_DIR) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-process-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    env.DATA_DIR = dataDir;
  }
  if (dialect === 'postgres' && !env.DATABASE_URL) {
    const database = await createTestDatabase(inject('postgresUrl'));
    cleanups.push(database.drop);
    env.DATABASE_URL = database.url;
  }
  const port = await freePort();
  env.PORT = String(port);
  // TEST_HARDWARE_ID: the process reports that hardware id, as if on another machine (hardware-id-preload.ts).
  const preload = env.TEST_HARDWARE_ID ? ['--import', hardwareIdPreload] : [];
  // `built`: the production build, as `npm start` runs it (apps/server/scripts/build.ts), with no TypeScript loader.
  const args = options.built ? ['--enable-source-maps', ...preload, builtEntry] : ['--import', 'tsx', ...preload, serverEntry];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.on('data', (d: Buffer) => console.error(String(d)));
  cleanups.push(() => void child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await request(agent, port, 'GET', '/api/v1/health')).status === 200) break;
    } catch (error) {
      // A minute: starting under tsx takes seconds, more on a busy machine.
      if (attempt > 600) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { env, child, exited, agent, port, config: loadConfig(env), call: apiOf(agent, port) };
}
