import { idSchema, type PlanWebhookEvent, planWebhookEvents, type WebhookDelivery, type WebhookSecret, webhookUrlSchema } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { badRequest, notFound } from '../../errors.ts';
import { decryptSecret, encryptSecret, randomToken } from '../../lib/keys.ts';
import { nowIso } from '../../lib/time.ts';
import { type DeliveryRow, findSecret, insertDelivery, insertSecretIfMissing, replaceSecret } from './plan-webhook.repository.ts';

/** What the session runtime hands over when a session starts or ends. */
export interface PlanEvent {
  tenantId: number;
  planId: number;
  /** The plan's `settings.webhook` at the time of the event. */
  url: string;
  event: PlanWebhookEvent;
  /** The event's data: the session, and for session.ended its report (docs/webhooks.md). */
  payload: Record<string, unknown>;
}

/** A receiver should not have to take more than this in one event; a report is far smaller. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

const planEventSchema = z.object({
  tenantId: idSchema,
  planId: idSchema,
  url: webhookUrlSchema,
  event: z.enum(planWebhookEvents),
  payload: z.record(z.string(), z.unknown()),
});

/**
 * Queues one plan event for delivery and answers the delivery's id. The row is the queue: it is
 * written (inside the caller's transaction, when given one) before anything is sent, so the event
 * survives a restart and any instance may send it. Bad input is refused with invalid_input and
 * nothing is written.
 */
export async function enqueuePlanEvent(db: Kysely<Database>, event: PlanEvent): Promise<number> {
  const parsed = planEventSchema.safeParse(event);
  if (!parsed.success) {
    throw badRequest(
      'invalid_input',
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  const payload = JSON.stringify(parsed.data.payload);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
    throw badRequest('invalid_input', [{ path: 'payload', message: `at most ${MAX_PAYLOAD_BYTES} bytes of JSON` }]);
  }
  const now = nowIso();
  const row = await insertDelivery(db, {
    tenant_id: parsed.data.tenantId,
    plan_id: parsed.data.planId,
    url: parsed.data.url,
    event: parsed.data.event,
    payload,
    attempts: 0,
    status: 'pending',
    next_attempt_time: now,
    lease_until: null,
    last_error: null,
    last_status: null,
    created_time: now,
    delivered_time: null,
  });
  return row.id;
}

/** The body a receiver gets: the same bytes on every attempt, so it may be stored and compared. */
export function deliveryBody(row: Pick<DeliveryRow, 'id' | 'event' | 'created_time' | 'tenant_id' | 'plan_id' | 'payload'>): string {
  return JSON.stringify({
    id: row.id,
    event: row.event,
    created_time: row.created_time,
    tenant_id: row.tenant_id,
    plan_id: row.plan_id,
    data: JSON.parse(row.payload) as unknown,
  });
}

export function presentDelivery(row: Record<string, unknown>): WebhookDelivery {
  return { ...row, payload: JSON.parse(row.payload as string) as Record<string, unknown> } as WebhookDelivery;
}

const newSecret = () => `whsec_${randomToken(32)}`;

type SecretContext = Pick<AppContext, 'keys'>;

/**
 * The tenant's signing key, made on first use: tenants that never use a webhook never get one,
 * and tenants that existed before webhooks need no backfill.
 */
export async function webhookSecretOf(ctx: SecretContext, db: Kysely<Database>, tenantId: number): Promise<WebhookSecret> {
  let stored = await findSecret(db, tenantId);
  if (!stored) {
    await insertSecretIfMissing(db, tenantId, encryptSecret(ctx.keys.secretsKey, newSecret()), nowIso());
    stored = await findSecret(db, tenantId);
    if (!stored) throw notFound('tenant_not_found');
  }
  return { secret: decryptSecret(ctx.keys.secretsKey, stored.secret), created_time: stored.created_time };
}

/** Replaces the tenant's key; every attempt from now on, retries of older events included, is signed with the new one. */
export async function rotateWebhookSecret(ctx: SecretContext, db: Kysely<Database>, tenantId: number): Promise<WebhookSecret> {
  const secret = newSecret();
  const now = nowIso();
  await replaceSecret(db, tenantId, encryptSecret(ctx.keys.secretsKey, secret), now);
  return { secret, created_time: now };
}
