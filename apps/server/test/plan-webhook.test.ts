import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { WebhookDelivery, WebhookSecret } from '@voxplan/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../src/errors.ts';
import {
  createPlanWebhookDispatcher,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_DELAYS_MS,
  type DispatcherOptions,
  type PlanWebhookDispatcher,
} from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import { claimDelivery } from '../src/modules/plan-webhook/plan-webhook.repository.ts';
import { enqueuePlanEvent, type PlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { q, startTestServer, type TestServer } from './harness.ts';

/**
 * The plan webhook (issue 5): events queued in the database, signed with the tenant's secret,
 * POSTed to a real local receiver through the outbound client, retried with back-off, and sent by
 * one instance at a time when several share the database.
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server that records what it receives and answers what the test says. */
interface Receiver {
  url: string;
  received: Received[];
  /** The status for each request; may wait before answering. */
  answer: (request: Received) => number | Promise<number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
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

interface ErrorBody {
  error: { statusCode: number; code: string; details?: { path: string }[] };
}
const expectCode = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json<ErrorBody>().error.code).toBe(code);
};

let server: TestServer;
let admin: string;
let tenantA: number;
let tenantB: number;
let memberA: string;
let guestA: string;
let memberB: string;
let receiver: Receiver;
const receivers: Receiver[] = [];
const extraServers: TestServer[] = [];
const dispatchers: PlanWebhookDispatcher[] = [];

/**
 * The clock the dispatchers read, moved by the tests instead of waiting. It starts a minute ahead
 * of the real one, so that events queued during the test (stamped with the real time) are due.
 */
const startClock = () => Date.now() + 60_000;
let clock = startClock();
const now = () => clock;
const advance = (ms: number) => (clock += ms);

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

async function setLoopback(value: 'true' | 'false'): Promise<void> {
  const found = await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name: 'outbound_allow_loopback' } })}`, token: admin });
  const [setting] = found.json<{ id: number }[]>();
  const response = await server.call({ method: 'PATCH', url: `/configurations/${setting!.id}`, token: admin, payload: { value } });
  expect(response.statusCode, response.body).toBe(200);
}

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

/** A dispatcher on the test clock, without jitter unless asked. */
function dispatcherFor(target: TestServer, options: DispatcherOptions = {}): PlanWebhookDispatcher {
  const dispatcher = createPlanWebhookDispatcher(target.ctx, { now, random: () => 0.5, ...options });
  dispatchers.push(dispatcher);
  return dispatcher;
}

/** Another server instance over the same database, as a second process would be. */
async function openSameDatabase(): Promise<TestServer> {
  const url = server.config.databaseUrl ?? `sqlite:${path.join(server.config.dataDir, 'voxplan.db')}`;
  const other = await startTestServer({ DATABASE_URL: url });
  extraServers.push(other);
  return other;
}

const event = (overrides: Partial<PlanEvent> = {}): PlanEvent => ({
  tenantId: tenantA,
  planId: 7,
  url: receiver.url,
  event: 'session.started',
  payload: { session_id: 'sess-1', channel: 'voice', caller: '+5511999990000', called: '+551130000000' },
  ...overrides,
});

async function delivery(id: number, token = memberA): Promise<WebhookDelivery> {
  const response = await server.call({ method: 'GET', url: `/webhook-deliveries/${id}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<WebhookDelivery>();
}

async function secretOf(token = memberA): Promise<WebhookSecret> {
  const response = await server.call({ method: 'GET', url: '/webhook-secret', token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<WebhookSecret>();
}

describe('delivery', () => {
  test('an event reaches the receiver once, signed with the tenant secret, with the documented headers and body', async () => {
    receiver = await startReceiver();
    const id = await enqueuePlanEvent(server.ctx.db, event());
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 0, event: 'session.started', plan_id: 7, tenant_id: tenantA });

    const outcomes = await dispatcherFor(server).runOnce();
    expect(outcomes).toEqual([{ id, attempts: 1, status: 'delivered' }]);
    expect(receiver.received).toHaveLength(1);
    const [{ headers, body }] = receiver.received as [Received];
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-voxplan-event']).toBe('session.started');
    expect(headers['x-voxplan-delivery']).toBe(String(id));
    expect(headers['x-voxplan-timestamp']).toBe(String(Math.floor(clock / 1000)));
    expect(headers['x-voxplan-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    const stored = await delivery(id);
    expect(JSON.parse(body)).toEqual({
      id,
      event: 'session.started',
      created_time: stored.created_time,
      tenant_id: tenantA,
      plan_id: 7,
      data: event().payload,
    });
    const signed = { body, timestamp: headers['x-voxplan-timestamp'] as string, signature: headers['x-voxplan-signature'] as string };
    const options = { nowSeconds: Math.floor(clock / 1000) };
    expect(isValidPlanWebhookSignature((await secretOf()).secret, signed, options)).toBe(true);
    // Tenant B's key, or a body changed on the way, does not verify.
    expect(isValidPlanWebhookSignature((await secretOf(memberB)).secret, signed, options)).toBe(false);
    expect(isValidPlanWebhookSignature((await secretOf()).secret, { ...signed, body: body.replace('sess-1', 'sess-2') }, options)).toBe(false);

    expect(stored).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: null, lease_until: null });
    expect(stored.delivered_time).not.toBeNull();
    // Delivered is delivered: later rounds send nothing more.
    advance(24 * 3600_000);
    expect(await dispatcherFor(server).runOnce()).toEqual([]);
    expect(receiver.received).toHaveLength(1);
  });

  test('a 500 and then a 200: delivered on the retry, 10 s later, with attempts = 2 and the same body and id', async () => {
    receiver = await startReceiver();
    let calls = 0;
    receiver.answer = () => (++calls === 1 ? 500 : 200);
    const dispatcher = dispatcherFor(server);
    const id = await enqueuePlanEvent(server.ctx.db, event({ event: 'session.ended', payload: { session_id: 's-9', report: { disposition: 'routed', nodes: 4 } } }));

    expect(await dispatcher.runOnce()).toEqual([{ id, attempts: 1, status: 'pending' }]);
    const afterFirst = await delivery(id);
    expect(afterFirst).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500: receiver is down', lease_until: null });
    expect(Date.parse(afterFirst.next_attempt_time) - clock).toBe(DEFAULT_RETRY_DELAYS_MS[0]);

    // Not due yet: nothing is sent.
    advance(DEFAULT_RETRY_DELAYS_MS[0]! - 1000);
    expect(await dispatcher.runOnce()).toEqual([]);
    expect(receiver.received).toHaveLength(1);

    advance(1000);
    expect(await dispatcher.runOnce()).toEqual([{ id, attempts: 2, status: 'delivered' }]);
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200, last_error: null });
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received as [Received, Received];
    expect(second.body).toBe(first.body);
    expect(second.headers['x-voxplan-delivery']).toBe(first.headers['x-voxplan-delivery']);
    expect(second.headers['x-voxplan-event']).toBe('session.ended');
    // A new attempt, a new timestamp: the signature is over the time it was sent.
    expect(Number(second.headers['x-voxplan-timestamp'])).toBeGreaterThan(Number(first.headers['x-voxplan-timestamp']));
  });

  test('waits grow (with jitter) up to the last attempt; then the delivery is failed and left alone', async () => {
    receiver = await startReceiver();
    receiver.answer = () => 503;
    // Jitter at its extremes, alternately: the waits still grow.
    let turn = 0;
    const dispatcher = dispatcherFor(server, { random: () => (turn++ % 2 === 0 ? 0.999 : 0) });
    const id = await enqueuePlanEvent(server.ctx.db, event());

    const waits: number[] = [];
    for (let attempt = 1; attempt < DEFAULT_MAX_ATTEMPTS; attempt++) {
      expect(await dispatcher.runOnce()).toEqual([{ id, attempts: attempt, status: 'pending' }]);
      const row = await delivery(id);
      const wait = Date.parse(row.next_attempt_time) - clock;
      waits.push(wait);
      const nominal = DEFAULT_RETRY_DELAYS_MS[attempt - 1]!;
      expect(wait).toBeGreaterThanOrEqual(nominal * 0.8);
      expect(wait).toBeLessThanOrEqual(nominal * 1.2);
      advance(wait);
    }
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);

    expect(await dispatcher.runOnce()).toEqual([{ id, attempts: DEFAULT_MAX_ATTEMPTS, status: 'failed' }]);
    expect(await delivery(id)).toMatchObject({ status: 'failed', attempts: DEFAULT_MAX_ATTEMPTS, last_status: 503, delivered_time: null });
    expect(receiver.received).toHaveLength(DEFAULT_MAX_ATTEMPTS);
    advance(30 * 24 * 3600_000);
    expect(await dispatcher.runOnce()).toEqual([]);
    expect(receiver.received).toHaveLength(DEFAULT_MAX_ATTEMPTS);
  });

  test('a refused address (loopback closed) is recorded as an error and retried, then failed: nothing crashes', async () => {
    receiver = await startReceiver();
    await setLoopback('false');
    try {
      const dispatcher = dispatcherFor(server, { maxAttempts: 2 });
      const id = await enqueuePlanEvent(server.ctx.db, event());
      expect(await dispatcher.runOnce()).toEqual([{ id, attempts: 1, status: 'pending' }]);
      const first = await delivery(id);
      expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status: null });
      expect(first.last_error).toMatch(/^forbidden_address: 127\.0\.0\.1 is a loopback address/);
      advance(DEFAULT_RETRY_DELAYS_MS[0]! * 2);
      expect(await dispatcher.runOnce()).toEqual([{ id, attempts: 2, status: 'failed' }]);
      expect((await delivery(id)).last_error).toMatch(/^forbidden_address/);
      expect(receiver.received).toEqual([]);
    } finally {
      await setLoopback('true');
    }
  });

  test('an unreachable receiver (connection refused) is a failure like any other', async () => {
    receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    const id = await enqueuePlanEvent(server.ctx.db, event({ url }));
    expect(await dispatcherFor(server).runOnce()).toEqual([{ id, attempts: 1, status: 'pending' }]);
    expect((await delivery(id)).last_error).toMatch(/^network: /);
  });

  test('a rotated secret signs every later attempt; the old one no longer verifies', async () => {
    receiver = await startReceiver();
    const old = await secretOf();
    const rotated = await server.call({ method: 'POST', url: '/webhook-secret', token: memberA });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const fresh = rotated.json<WebhookSecret>();
    expect(fresh.secret).toMatch(/^whsec_/);
    expect(fresh.secret).not.toBe(old.secret);
    expect(await secretOf()).toEqual(fresh);

    await enqueuePlanEvent(server.ctx.db, event());
    await dispatcherFor(server).runOnce();
    const [{ headers, body }] = receiver.received as [Received];
    const signed = { body, timestamp: headers['x-voxplan-timestamp'] as string, signature: headers['x-voxplan-signature'] as string };
    expect(isValidPlanWebhookSignature(fresh.secret, signed, { nowSeconds: Math.floor(clock / 1000) })).toBe(true);
    expect(isValidPlanWebhookSignature(old.secret, signed, { nowSeconds: Math.floor(clock / 1000) })).toBe(false);
  });

  test('a started dispatcher delivers on its own, and stop() returns only once the attempt in progress is recorded', async () => {
    receiver = await startReceiver();
    let release: (status: number) => void = () => {};
    receiver.answer = () => new Promise<number>((resolve) => (release = resolve));
    const dispatcher = createPlanWebhookDispatcher(server.ctx, { pollIntervalMs: 20 });
    dispatchers.push(dispatcher);
    dispatcher.start();
    const id = await enqueuePlanEvent(server.ctx.db, event());
    await expect.poll(() => receiver.received.length).toBe(1);

    let stopped = false;
    const stopping = dispatcher.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release(204);
    await stopping;
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1, last_status: 204 });
  });
});

describe('several instances on one database', () => {
  test('two dispatchers racing over the same events: each event is sent exactly once, never twice at once', async () => {
    receiver = await startReceiver();
    const other = await openSameDatabase();
    const inFlight = new Map<string, number>();
    let overlaps = 0;
    receiver.answer = async ({ headers }) => {
      const id = headers['x-voxplan-delivery'] as string;
      inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
      if (inFlight.get(id)! > 1) overlaps++;
      // Long enough for the other instance to try the same event meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight.set(id, inFlight.get(id)! - 1);
      return 200;
    };
    const ids: number[] = [];
    for (let n = 0; n < 24; n++) ids.push(await enqueuePlanEvent(n % 2 === 0 ? server.ctx.db : other.ctx.db, event({ payload: { n } })));

    const first = dispatcherFor(server, { batchSize: 50 });
    const second = dispatcherFor(other, { batchSize: 50 });
    const sentBy = { first: 0, second: 0 };
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([first.runOnce(), second.runOnce()]);
      sentBy.first += a.length;
      sentBy.second += b.length;
    }
    expect(overlaps).toBe(0);
    const sent = receiver.received.map((request) => Number(request.headers['x-voxplan-delivery'])).sort((x, y) => x - y);
    expect(sent).toEqual([...ids].sort((x, y) => x - y));
    expect(sentBy.first + sentBy.second).toBe(ids.length);
    const rows = await server.ctx.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('id', 'in', ids).execute();
    expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });

  test('an event queued before a restart is delivered after it', async () => {
    receiver = await startReceiver();
    const before = await openSameDatabase();
    const id = await enqueuePlanEvent(before.ctx.db, event());
    await before.close();
    extraServers.splice(extraServers.indexOf(before), 1);

    const after = await openSameDatabase();
    expect(await dispatcherFor(after).runOnce()).toEqual([{ id, attempts: 1, status: 'delivered' }]);
    expect(receiver.received).toHaveLength(1);
  });

  test('an instance that died mid-attempt: its lease keeps the others off until it runs out, then one of them delivers', async () => {
    receiver = await startReceiver();
    const dying = await openSameDatabase();
    const id = await enqueuePlanEvent(dying.ctx.db, event());
    const leaseMs = 60_000;
    // What the dispatcher of the dying instance did before it went: claim the event for an attempt.
    const claimed = await claimDelivery(dying.ctx.db, id, new Date(clock).toISOString(), new Date(clock + leaseMs).toISOString());
    expect(claimed).toMatchObject({ id, attempts: 1 });
    await dying.close();
    extraServers.splice(extraServers.indexOf(dying), 1);

    const survivor = dispatcherFor(server, { leaseMs });
    expect(await survivor.runOnce()).toEqual([]);
    advance(leaseMs - 1000);
    expect(await survivor.runOnce()).toEqual([]);
    expect(receiver.received).toEqual([]);
    advance(2000);
    expect(await survivor.runOnce()).toEqual([{ id, attempts: 2, status: 'delivered' }]);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('enqueuePlanEvent', () => {
  const deliveryCount = async () =>
    Number((await server.ctx.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  test('bad input is refused with invalid_input naming the field, and nothing is queued', async () => {
    receiver = await startReceiver();
    const cases: [Partial<PlanEvent>, string][] = [
      [{ url: 'ftp://files.example/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ event: 'session.paused' as PlanEvent['event'] }, 'event'],
      [{ tenantId: 0 }, 'tenantId'],
      [{ planId: -1 }, 'planId'],
      [{ payload: ['not', 'an', 'object'] as unknown as Record<string, unknown> }, 'payload'],
      [{ payload: { big: 'x'.repeat(300 * 1024) } }, 'payload'],
    ];
    for (const [overrides, field] of cases) {
      const failure = await enqueuePlanEvent(server.ctx.db, event(overrides)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, field).toBeInstanceOf(AppError);
      expect((failure as AppError).code).toBe('invalid_input');
      expect((failure as AppError).details?.map((detail) => detail.path)).toContain(field);
    }
    expect(await deliveryCount()).toBe(0);
  });

  test('inside a transaction, the event is queued only if the transaction commits', async () => {
    receiver = await startReceiver();
    await server.ctx.db
      .transaction()
      .execute(async (trx) => {
        await enqueuePlanEvent(trx, event());
        throw new Error('the session could not be saved');
      })
      .catch(() => undefined);
    expect(await deliveryCount()).toBe(0);
    await server.ctx.db.transaction().execute((trx) => enqueuePlanEvent(trx, event()));
    expect(await deliveryCount()).toBe(1);
  });
});

describe('the deliveries API', () => {
  test('members and guests read their tenant\'s deliveries and filter them; another tenant\'s are not found', async () => {
    receiver = await startReceiver();
    receiver.answer = ({ body }) => ((JSON.parse(body) as { data: { n: number } }).data.n === 1 ? 500 : 200);
    const ids = [];
    for (const n of [0, 1, 2]) ids.push(await enqueuePlanEvent(server.ctx.db, event({ payload: { n } })));
    const idB = await enqueuePlanEvent(server.ctx.db, event({ tenantId: tenantB, payload: { n: 0 } }));
    await dispatcherFor(server, { maxAttempts: 1 }).runOnce();

    for (const token of [memberA, guestA]) {
      const failed = await server.call({ method: 'GET', url: `/webhook-deliveries?${q('filter', { where: { status: 'failed' } })}`, token });
      expect(failed.statusCode, failed.body).toBe(200);
      expect(failed.json<WebhookDelivery[]>()).toEqual([expect.objectContaining({ id: ids[1], status: 'failed', last_status: 500, payload: { n: 1 } })]);
      const all = await server.call({ method: 'GET', url: '/webhook-deliveries', token });
      expect(all.json<WebhookDelivery[]>().map((row) => row.id)).toEqual([...ids].reverse());
      expect((await server.call({ method: 'GET', url: `/webhook-deliveries/count?${q('where', { status: 'delivered' })}`, token })).json()).toEqual({ count: 2 });
      expectCode(await server.call({ method: 'GET', url: `/webhook-deliveries/${idB}`, token }), 404, 'not_found');
    }
    expect((await delivery(idB, memberB)).status).toBe('delivered');
  });

  test('redeliver now: a failed delivery is sent again at once; audited; guests and other tenants are refused', async () => {
    receiver = await startReceiver();
    receiver.answer = () => 500;
    const id = await enqueuePlanEvent(server.ctx.db, event());
    const dispatcher = dispatcherFor(server, { maxAttempts: 1 });
    await dispatcher.runOnce();
    expect((await delivery(id)).status).toBe('failed');

    const redeliver = (token: string) => server.call({ method: 'POST', url: `/webhook-deliveries/${id}/redeliver`, token });
    expectCode(await redeliver(guestA), 403, 'readonly_only');
    expectCode(await redeliver(memberB), 404, 'not_found');
    expect((await delivery(id)).status).toBe('failed');

    const lastAudit = async () =>
      (await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'webhook_delivery' }, order: ['id DESC'], limit: 1 })}`, token: admin })).json<
        { entity_id: string; tenant_id: number; username: string; before: { status: string }; after: { status: string } }[]
      >()[0];
    const again = await redeliver(memberA);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json<WebhookDelivery>()).toMatchObject({ id, status: 'pending', attempts: 1 });
    expect(await lastAudit()).toMatchObject({
      entity_id: String(id),
      tenant_id: tenantA,
      username: 'hook-member-a',
      before: { status: 'failed' },
      after: { status: 'pending' },
    });

    receiver.answer = () => 200;
    expect(await dispatcher.runOnce()).toEqual([{ id, attempts: 2, status: 'delivered' }]);
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  test('redeliver while an instance is sending it answers webhook_delivery_in_progress and changes nothing', async () => {
    receiver = await startReceiver();
    let release: (status: number) => void = () => {};
    receiver.answer = () => new Promise<number>((resolve) => (release = resolve));
    const id = await enqueuePlanEvent(server.ctx.db, event());
    // The real clock: the lease is compared with the time the API call sees.
    const dispatcher = dispatcherFor(server, { now: Date.now });
    const round = dispatcher.runOnce();
    await expect.poll(() => receiver.received.length).toBe(1);

    expectCode(await server.call({ method: 'POST', url: `/webhook-deliveries/${id}/redeliver`, token: memberA }), 409, 'webhook_delivery_in_progress');
    release(200);
    await round;
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  test('no write route exists on the deliveries themselves', async () => {
    receiver = await startReceiver();
    const id = await enqueuePlanEvent(server.ctx.db, event());
    for (const call of [
      { method: 'POST' as const, url: '/webhook-deliveries', payload: {} },
      { method: 'PATCH' as const, url: `/webhook-deliveries/${id}`, payload: { status: 'delivered' } },
      { method: 'DELETE' as const, url: `/webhook-deliveries/${id}` },
    ]) {
      expectCode(await server.call({ ...call, token: memberA }), 404, 'not_found');
    }
    expect((await delivery(id)).status).toBe('pending');
  });
});

describe('a removed tenant', () => {
  test('takes its queued deliveries and its secret with it: nothing is sent for it any more', async () => {
    receiver = await startReceiver();
    const created = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'webhook-gone' } });
    const gone = created.json<{ id: number }>().id;
    expect((await server.call({ method: 'GET', url: '/webhook-secret', token: admin, tenant: gone })).statusCode).toBe(200);
    await enqueuePlanEvent(server.ctx.db, event({ tenantId: gone }));
    expect((await server.call({ method: 'DELETE', url: `/tenants/${gone}`, token: admin })).statusCode).toBe(204);

    expect(await dispatcherFor(server).runOnce()).toEqual([]);
    expect(receiver.received).toEqual([]);
    expect(await server.ctx.db.selectFrom('webhook_deliveries').select('id').where('tenant_id', '=', gone).execute()).toEqual([]);
    expect(await server.ctx.db.selectFrom('webhook_secrets').select('tenant_id').where('tenant_id', '=', gone).execute()).toEqual([]);
  });
});

describe('the webhook secret', () => {
  test('members read it; the same secret until rotated; each tenant has its own', async () => {
    const first = await secretOf();
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await secretOf()).toEqual(first);
    expect((await secretOf(memberB)).secret).not.toBe(first.secret);
    const asAdmin = await server.call({ method: 'GET', url: '/webhook-secret', token: admin, tenant: tenantA });
    expect(asAdmin.json()).toEqual(first);
  });

  test('it is stored encrypted, never in clear', async () => {
    const { secret } = await secretOf();
    const stored = await server.ctx.db.selectFrom('webhook_secrets').select('secret').where('tenant_id', '=', tenantA).executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).toMatch(/^v1:/);
  });

  test('guests may neither read nor rotate it; an admin must name a tenant that exists', async () => {
    expectCode(await server.call({ method: 'GET', url: '/webhook-secret', token: guestA }), 403, 'no_role_permission');
    expectCode(await server.call({ method: 'POST', url: '/webhook-secret', token: guestA }), 403, 'readonly_only');
    expectCode(await server.call({ method: 'GET', url: '/webhook-secret', token: admin }), 400, 'no_tenant_provided');
    expectCode(await server.call({ method: 'POST', url: '/webhook-secret', token: admin, tenant: 0 }), 400, 'no_tenant_provided');
    expectCode(await server.call({ method: 'GET', url: '/webhook-secret', token: admin, tenant: 2_000_000_000 }), 404, 'tenant_not_found');
  });

  test('rotating is audited with the secret masked', async () => {
    const before = await secretOf(memberB);
    const rotated = await server.call({ method: 'POST', url: '/webhook-secret', token: admin, tenant: tenantB });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret } = rotated.json<WebhookSecret>();
    const audit = await server.call({
      method: 'GET',
      url: `/audit?${q('filter', { where: { entity: 'webhook_secret' }, order: ['id DESC'], limit: 1 })}`,
      token: admin,
    });
    const [entry] = audit.json<{ action: string; entity_id: string; tenant_id: number; before: unknown; after: unknown }[]>();
    expect(entry).toMatchObject({ action: 'update', entity_id: String(tenantB), tenant_id: tenantB, before: { secret: '••••' }, after: { secret: '••••' } });
    expect(audit.body).not.toContain(secret);
    expect(audit.body).not.toContain(before.secret);
    expect((await secretOf(memberB)).secret).toBe(secret);
  });
});
