import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { isValidPlanWebhookSignature, signPlanWebhook } from './plan-webhook.signature.ts';

// The example of docs/webhooks.md; its signature was computed apart from this code, with
// `printf '%s' "1767225600.$body" | openssl dgst -sha256 -hmac "$secret"`.
const secret = 'whsec_example_secret_do_not_use';
const timestamp = '1767225600';
const body =
  '{"id":42,"event":"session.started","created_time":"2026-01-01T00:00:00.000Z","tenant_id":3,"plan_id":7,"data":{"session_id":"s-1","caller":"+5511999990000"}}';
const signature = 'sha256=4cc05beee4152947c0261894b0bce0ff49dbd81af55ef30f5729002d681d4533';
const nowSeconds = Number(timestamp) + 10;

describe('plan webhook signatures', () => {
  test('the documented example signs and verifies', () => {
    expect(signPlanWebhook(secret, Number(timestamp), body)).toBe(signature);
    expect(isValidPlanWebhookSignature(secret, { body, timestamp, signature }, { nowSeconds })).toBe(true);
    expect(isValidPlanWebhookSignature(secret, { body, timestamp, signature: signature.toUpperCase().replace('SHA256=', 'sha256=') }, { nowSeconds })).toBe(true);
  });

  test('docs/webhooks.md shows this very example', () => {
    const doc = fs.readFileSync(new URL('../../../../../docs/webhooks.md', import.meta.url), 'utf8');
    for (const text of [secret, timestamp, body, signature]) expect(doc).toContain(text);
  });

  test('another secret, a changed body or a changed timestamp fail', () => {
    expect(isValidPlanWebhookSignature('whsec_other', { body, timestamp, signature }, { nowSeconds })).toBe(false);
    expect(isValidPlanWebhookSignature(secret, { body: body.replace('+5511', '+5521'), timestamp, signature }, { nowSeconds })).toBe(false);
    expect(isValidPlanWebhookSignature(secret, { body: `${body} `, timestamp, signature }, { nowSeconds })).toBe(false);
    expect(isValidPlanWebhookSignature(secret, { body, timestamp: String(Number(timestamp) + 1), signature }, { nowSeconds })).toBe(false);
  });

  test('a timestamp outside the tolerance fails, even with a right signature (a replay)', () => {
    const later = Number(timestamp) + 301;
    expect(isValidPlanWebhookSignature(secret, { body, timestamp, signature }, { nowSeconds: later })).toBe(false);
    expect(isValidPlanWebhookSignature(secret, { body, timestamp, signature }, { nowSeconds: Number(timestamp) - 301 })).toBe(false);
    expect(isValidPlanWebhookSignature(secret, { body, timestamp, signature }, { nowSeconds: later, toleranceSeconds: 3600 })).toBe(true);
  });

  test('missing or malformed headers fail without throwing', () => {
    for (const broken of [
      { timestamp: undefined, signature },
      { timestamp, signature: undefined },
      { timestamp: 'yesterday', signature },
      { timestamp, signature: signature.slice('sha256='.length) },
      { timestamp, signature: 'sha256=abc' },
      { timestamp, signature: `sha1=${signature.slice('sha256='.length)}` },
      { timestamp, signature: `sha256=${'z'.repeat(64)}` },
    ]) {
      expect(isValidPlanWebhookSignature(secret, { body, ...broken }, { nowSeconds }), JSON.stringify(broken)).toBe(false);
    }
  });
});
