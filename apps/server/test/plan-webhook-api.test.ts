import type { WebhookDelivery, WebhookSecret } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { AppError } from '../src/errors.ts';
import { enqueuePlanEvent, type PlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { q } from './harness.ts';
import { admin, delivery, dispatcherFor, event, expectCode, guestA, memberA, memberB, type Receiver, secretOf, server, startReceiver, tenantA, tenantB, usePlanWebhookServer } from './plan-webhook-fixture.ts';

/**
 * The plan webhook (issue 5), continued from plan-webhook.test.ts: what enqueuePlanEvent accepts, the
 * deliveries API with its redelivery, a removed tenant's deliveries, and the webhook secret.
 */

usePlanWebhookServer();
let receiver: Receiver;

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
