import type { WebhookSecret } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { createPlanWebhookDispatcher, DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_DELAYS_MS } from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import { claimDelivery } from '../src/modules/plan-webhook/plan-webhook.repository.ts';
import { enqueuePlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { advance, clock, delivery, dispatcherFor, dispatchers, event, extraServers, memberA, memberB, openSameDatabase, type Received, type Receiver, secretOf, server, setLoopback, startReceiver, tenantA, usePlanWebhookServer } from './plan-webhook-fixture.ts';

/**
 * The plan webhook (issue 5): events queued in the database, signed with the tenant's secret,
 * POSTed to a real local receiver through the outbound client, retried with back-off, and sent by
 * one instance at a time when several share the database. Queueing, the deliveries API and the
 * secret are in plan-webhook-api.test.ts.
 */

usePlanWebhookServer();
let receiver: Receiver;

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
