import { describe, expect, test } from 'vitest';
import { type RecordingHostsConfig, recordingUrlCheck } from './recording-hosts.ts';

const config: RecordingHostsConfig = { twilioApiUrl: 'https://api.twilio.com', agi: { recordingUrl: 'https://pbx.acme.example/recordings/{file}' } };
const allows = (provider: Parameters<typeof recordingUrlCheck>[1], url: string, given = config) => recordingUrlCheck(given, provider)(new URL(url));

describe("a provider's recording hosts", () => {
  test("Twilio: its API host and a region's, over https on the default port (https://www.twilio.com/docs/global-infrastructure/using-the-twilio-rest-api-in-a-non-us-region)", () => {
    expect(allows('twilio', 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1')).toBe(true);
    expect(allows('twilio', 'https://api.dublin.ie1.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1')).toBe(true);
    expect(allows('twilio', 'https://api.us1.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1')).toBe(true);
    for (const url of ['http://api.twilio.com/x', 'https://api.twilio.com:8443/x', 'https://api.twilio.com.evil.example/x', 'https://evil.twilio.com/x', 'https://169.254.169.254/x', 'https://pbx.acme.example/recordings/a.wav']) {
      expect(allows('twilio', url), url).toBe(false);
    }
  });

  test('Twilio: the TWILIO_API_URL the operator configured (a proxy, a test server), by its whole origin', () => {
    const proxied = { ...config, twilioApiUrl: 'http://127.0.0.1:4010/twilio' };
    expect(allows('twilio', 'http://127.0.0.1:4010/twilio/Recordings/RE1', proxied)).toBe(true);
    expect(allows('twilio', 'http://127.0.0.1:4011/twilio/Recordings/RE1', proxied)).toBe(false);
  });

  test("Asterisk: AGI_RECORDING_URL's origin only, and nothing when it is not set", () => {
    expect(allows('asterisk', 'https://pbx.acme.example/recordings/voxplan-1.wav')).toBe(true);
    expect(allows('asterisk', 'https://api.twilio.com/x')).toBe(false);
    expect(allows('asterisk', 'https://pbx.acme.example/x', { ...config, agi: null })).toBe(false);
  });

  test('the other providers make no recordings to fetch', () => {
    for (const provider of ['whatsapp', 'webchat', 'simulator'] as const) expect(allows(provider, 'https://api.twilio.com/x')).toBe(false);
  });
});
