import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

/**
 * The plan webhook (blocks.md, plan settings `webhook`): signed JSON events sent to the URL a plan
 * names. docs/webhooks.md describes what a receiver gets and how it checks the signature. The same
 * queue carries an outside desk's `chat.message` events (docs/handoff.md) and an outbound call's
 * `outbound_call.ended` to its `status_url` (docs/outbound.md), retried alike.
 */
export const planWebhookEvents = ['session.started', 'session.ended', 'chat.message', 'outbound_call.ended'] as const;
export type PlanWebhookEvent = (typeof planWebhookEvents)[number];

/** pending: waiting for its next attempt (or in one); delivered: a 2xx answer; failed: out of attempts. */
export const webhookDeliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];

/** A receiver's address: http or https, as the plan setting holds it. */
export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2000)
  .refine((text) => {
    try {
      const { protocol } = new URL(text);
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'invalidUrl');

export const webhookDeliverySchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  plan_id: idSchema,
  url: z.string(),
  event: z.enum(planWebhookEvents),
  /** The event's own data, sent as `data` in the body. */
  payload: z.record(z.string(), z.unknown()),
  /** Attempts made so far, the one in progress included. */
  attempts: z.number().int().nonnegative(),
  status: z.enum(webhookDeliveryStatuses),
  next_attempt_time: timestampSchema,
  /** Set while an instance is sending it; another instance takes it over only after this time. */
  lease_until: timestampSchema.nullable(),
  last_error: z.string().nullable(),
  /** The HTTP status of the last answer; null when there was none (refused address, timeout, ...). */
  last_status: z.number().int().nullable(),
  created_time: timestampSchema,
  delivered_time: timestampSchema.nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** The key a tenant's plan webhooks are signed with (HMAC-SHA256). */
export const webhookSecretSchema = z.object({
  secret: z.string(),
  created_time: timestampSchema,
});
export type WebhookSecret = z.infer<typeof webhookSecretSchema>;
