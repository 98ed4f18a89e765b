import twilio from 'twilio';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { refusalOf, twilioDialer } from './dialer.ts';
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

describe('the pace campaigns keep to on a Twilio account', () => {
  afterEach(() => vi.unstubAllEnvs());

  test('1 call a second, Twilio’s default, unless TWILIO_CALLS_PER_SECOND grants more', () => {
    expect(twilioDialer.callsPerSecond).toBe(1);
    vi.stubEnv('TWILIO_CALLS_PER_SECOND', '50');
    expect(twilioDialer.callsPerSecond).toBe(50);
  });

  test.each(['0', '-3', '2.5', 'fast', ''])('TWILIO_CALLS_PER_SECOND=%j is not a pace: the default', (value) => {
    vi.stubEnv('TWILIO_CALLS_PER_SECOND', value);
    expect(twilioDialer.callsPerSecond).toBe(1);
  });
});
