import twilio from 'twilio';
import { describe, expect, test } from 'vitest';
import { refusalOf } from './dialer.ts';
import { answeredByOf } from './outbound-hooks.ts';

/** A refusal as the library builds it from Twilio's error answer (https://www.twilio.com/docs/api/errors). */
const refusal = (statusCode: number, code: number, message: string) =>
  new twilio.RestException({ statusCode, body: JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status: statusCode }) });

describe('Twilio’s refusals of a call, as catalogue codes', () => {
  test.each([
    [400, 21211, 400, 'invalid_phone_number', 'to'],
    [401, 20003, 422, 'outbound_provider_auth_refused', 'from'],
    [429, 20429, 429, 'outbound_provider_rate_limited', 'from'],
    [503, 20500, 502, 'outbound_provider_unreachable', 'from'],
    [400, 21210, 422, 'outbound_provider_refused', 'from'],
  ])('HTTP %i, Twilio code %i: %i %s', (status, code, statusCode, ourCode, path) => {
    const error = refusalOf(refusal(status, code, 'what Twilio said'));
    expect(error).toMatchObject({ statusCode, code: ourCode, details: [{ path, message: `${code}: what Twilio said` }] });
  });

  test('anything else Twilio refuses names its reason in the text', () => {
    expect(refusalOf(refusal(400, 21210, "'From' phone number not verified")).params).toEqual({ reason: "21210: 'From' phone number not verified" });
  });
});

describe('AnsweredBy, as the plan reads it', () => {
  test.each([
    ['human', 'human'],
    ['machine_start', 'machine'],
    ['machine_end_beep', 'machine'],
    ['machine_end_silence', 'machine'],
    ['machine_end_other', 'machine'],
    ['fax', 'machine'],
    ['unknown', 'unknown'],
    ['', undefined],
    [undefined, undefined],
  ])('%s: %s', (given, expected) => {
    expect(answeredByOf(given)).toBe(expected);
  });
});
