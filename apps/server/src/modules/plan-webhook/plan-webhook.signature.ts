import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How plan webhook requests are signed, and how a receiver checks them (docs/webhooks.md).
 *
 * The signed text is "<timestamp>.<body>": the timestamp (Unix seconds, also sent as
 * X-Voxplan-Timestamp) is inside the signature, so a receiver that refuses old timestamps refuses
 * a captured request replayed later, and the body is signed byte for byte as sent.
 */
export const SIGNATURE_PREFIX = 'sha256=';

/** How far a timestamp may be from the receiver's clock, by default: 5 minutes, as Stripe and Slack allow. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signPlanWebhook(secret: string, timestamp: number | string, body: string): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * The headers of a signed request: the plan webhook's deliveries and the chat hand-off
 * (docs/handoff.md) are signed alike, so that a receiver checks both the same way.
 */
export function signedRequestHeaders(
  secret: string,
  request: { body: string; timestampSeconds: number; userAgent: string; event: string; delivery: string },
): Record<string, string> {
  const { body, timestampSeconds, userAgent, event, delivery } = request;
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'x-voxplan-event': event,
    'x-voxplan-delivery': delivery,
    'x-voxplan-timestamp': String(timestampSeconds),
    'x-voxplan-signature': signPlanWebhook(secret, timestampSeconds, body),
  };
}

export interface SignedRequest {
  /** The body exactly as received, before any JSON parsing. */
  body: string;
  /** The X-Voxplan-Timestamp header. */
  timestamp: string | undefined;
  /** The X-Voxplan-Signature header. */
  signature: string | undefined;
}

/**
 * What a receiver runs on each request: true when the signature is the tenant secret's HMAC of
 * this timestamp and body, and the timestamp is within the tolerance of `nowSeconds`.
 */
export function isValidPlanWebhookSignature(
  secret: string,
  request: SignedRequest,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const { body, timestamp, signature } = request;
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  if (!signature.startsWith(SIGNATURE_PREFIX) || !/^[0-9a-f]{64}$/i.test(signature.slice(SIGNATURE_PREFIX.length))) return false;
  // The header's own text is what was signed.
  const expected = Buffer.from(signPlanWebhook(secret, timestamp, body).slice(SIGNATURE_PREFIX.length), 'hex');
  // Constant time, so the comparison does not reveal how many leading bytes were right.
  return timingSafeEqual(expected, Buffer.from(signature.slice(SIGNATURE_PREFIX.length), 'hex'));
}
