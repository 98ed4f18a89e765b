/**
 * What the plan webhook's tests share (plan-webhook*.test.ts): a server with two tenants, their
 * members and a guest, real local receivers, dispatchers on a clock the tests move, and the reads of
 * deliveries and secrets. The bindings are set by usePlanWebhookServer's hooks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { WebhookDelivery, WebhookSecret } from '@voxplan/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createPlanWebhookDispatcher, type DispatcherOptions, type PlanWebhookDispatcher } from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import type { PlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { q, startTestServer, type TestServer } from './harness.ts';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server that records what it receives and answers what the test says. */
export interface Receiver {
  url: string;
  received: Received[];
  /** The status for each request; may wait before answering. */
  answer: (request: Received) => number | Promise<number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], answer: () => 200, close: async () => {} };
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const received = { headers: request.headers, body };
      receiver.received.push(received);
      void Promise.resolve(receiver.answer(received)).then((status) => {
        response.statusCode = status;
        response.end(status < 300 ? 'thanks' : 'receiver is down');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/voxplan`;
  receiver.close = async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  receivers.push(receiver);
  return receiver;
}

export interface ErrorBody {
  error: { statusCode: number; code: string; details?: { path: string }[] };
}
export const expectCode = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json<ErrorBody>().error.code).toBe(code);
};

export let server: TestServer;
export let admin: string;
export let tenantA: number;
export let tenantB: number;
export let memberA: string;
export let guestA: string;
export let memberB: string;
export const receivers: Receiver[] = [];
export const extraServers: TestServer[] = [];
export const dispatchers: PlanWebhookDispatcher[] = [];

/**
 * The clock the dispatchers read, moved by the tests instead of waiting. It starts a minute ahead
 * of the real one, so that events queued during the test (stamped with the real time) are due.
 */
const startClock = () => Date.now() + 60_000;
export let clock = startClock();
export const now = () => clock;
export const advance = (ms: number) => (clock += ms);

async function createUser(tenantId: number, role: 'user' | 'guest', name: string): Promise<string> {
  const password = `${name}-password`;
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username: name, password, email: `${name}@example.com`, name, roles: [{ role, tenant_id: tenantId }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return server.login(name, password);
}

export async function setLoopback(value: 'true' | 'false'): Promise<void> {
  const found = await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name: 'outbound_allow_loopback' } })}`, token: admin });
  const [setting] = found.json<{ id: number }[]>();
  const response = await server.call({ method: 'PATCH', url: `/configurations/${setting!.id}`, token: admin, payload: { value } });
  expect(response.statusCode, response.body).toBe(200);
}

/** Starts the server with two tenants and their users; after each test, stops what it started and forgets its deliveries. */
export function usePlanWebhookServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    const tenant = async (name: string) => (await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } })).json<{ id: number }>().id;
    tenantA = await tenant('webhook-a');
    tenantB = await tenant('webhook-b');
    memberA = await createUser(tenantA, 'user', 'hook-member-a');
    guestA = await createUser(tenantA, 'guest', 'hook-guest-a');
    memberB = await createUser(tenantB, 'user', 'hook-member-b');
    // Loopback is closed by default; the receiver lives on 127.0.0.1 (outbound.test.ts does the same).
    await setLoopback('true');
  });
  afterEach(async () => {
    for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop();
    for (const open of receivers.splice(0)) await open.close();
    // Each test sees only its own deliveries: every dispatcher sends whatever is due in the database.
    await server.ctx.db.deleteFrom('webhook_deliveries').execute();
    clock = startClock();
  });
  afterAll(async () => {
    for (const extra of extraServers.reverse()) await extra.close();
    await server.close();
  });
}

/** A dispatcher on the test clock, without jitter unless asked. */
export function dispatcherFor(target: TestServer, options: DispatcherOptions = {}): PlanWebhookDispatcher {
  const dispatcher = createPlanWebhookDispatcher(target.ctx, { now, random: () => 0.5, ...options });
  dispatchers.push(dispatcher);
  return dispatcher;
}

/** Another server instance over the same database, as a second process would be. */
export async function openSameDatabase(): Promise<TestServer> {
  const url = server.config.databaseUrl ?? `sqlite:${path.join(server.config.dataDir, 'voxplan.db')}`;
  const other = await startTestServer({ DATABASE_URL: url });
  extraServers.push(other);
  return other;
}

export const event = (overrides: Partial<PlanEvent> = {}): PlanEvent => ({
  tenantId: tenantA,
  planId: 7,
  // The receiver the test started last: each test starts its own.
  url: receivers.at(-1)!.url,
  event: 'session.started',
  payload: { session_id: 'sess-1', channel: 'voice', caller: '+5511999990000', called: '+551130000000' },
  ...overrides,
});

export async function delivery(id: number, token = memberA): Promise<WebhookDelivery> {
  const response = await server.call({ method: 'GET', url: `/webhook-deliveries/${id}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<WebhookDelivery>();
}

export async function secretOf(token = memberA): Promise<WebhookSecret> {
  const response = await server.call({ method: 'GET', url: '/webhook-secret', token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<WebhookSecret>();
}
