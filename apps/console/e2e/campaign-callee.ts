/**
 * The people a campaign calls, for the console's end-to-end tests. The campaign dispatcher runs on
 * the test's server over the real outbound core, as `main.ts` starts it on every instance; the core
 * places each call through the official Twilio library against a local server speaking Twilio's
 * REST API (`twilio-rest.ts`, which checks a Create Call as Twilio documents it), and the test then
 * plays Twilio for each call, with the callbacks Twilio would send, signed as Twilio signs them:
 * - the callee answers: Twilio asks the call's `Url` (our voice webhook) for its TwiML, then posts
 *   `completed` to the `StatusCallback` when the call is over;
 * - the line is busy: Twilio posts `busy` to the `StatusCallback` and never asks the `Url`.
 * https://www.twilio.com/docs/voice/api/call-resource#statuscallback
 * https://www.twilio.com/docs/voice/twiml#twilios-request-to-your-application
 */
import twilio from 'twilio';
import { expect } from 'vitest';
import { coreCampaignCalls } from '../../server/src/modules/campaigns/campaign-calls.ts';
import { createDispatcher, type Dispatcher } from '../../server/src/modules/campaigns/dispatcher.ts';
import type { TenantMember, TestServer } from '../../server/test/harness.ts';
import { type CreatedCall, startTwilioRest, type TwilioRest } from '../../server/test/twilio-rest.ts';

const PUBLIC_URL = 'https://campaigns.example.com';
const ACCOUNT = 'AC00000000000000000000000000000038';
const AUTH_TOKEN = 'campaigns-auth-token';

export interface PlacedCall {
  to: string;
  /** Picks up and listens to the plan to its end (it hangs up); then Twilio says the call is over. */
  answer(): Promise<void>;
  /** The line is busy: the call ends unanswered. */
  busy(): Promise<void>;
}

export interface Callee {
  /** What the server needs to place its calls here. */
  serverEnv: Record<string, string>;
  /** The tenant's Twilio number the campaign calls from. */
  fromNumber: string;
  provider: 'twilio';
  /** Gives the tenant its Twilio account and starts the server's campaign dispatcher. */
  start(server: TestServer, adminToken: string, member: TenantMember, baseUrl: string): Promise<void>;
  /** The call the server places to `to` (waits for it). */
  callTo(to: string): Promise<PlacedCall>;
  close(): Promise<void>;
}

export async function startCallee(): Promise<Callee> {
  const rest: TwilioRest = await startTwilioRest({ [ACCOUNT]: AUTH_TOKEN });
  let base = '';
  let dispatcher: Dispatcher | undefined;
  const taken = new Set<string>();

  function placedCall(call: CreatedCall): PlacedCall {
    const form = { AccountSid: ACCOUNT, CallSid: call.sid, From: call.form.get('From') ?? '', To: call.form.get('To') ?? '', Direction: 'outbound-api' };
    /** Posts to one of the URLs the server gave Twilio (absolute, under PUBLIC_URL), signed with the account's token. */
    const post = async (url: string | null, extra: Record<string, string>) => {
      if (!url?.startsWith(PUBLIC_URL)) throw new Error(`${url} is not under ${PUBLIC_URL}`);
      const body = { ...form, ...extra };
      const response = await fetch(`${base}${url.slice(PUBLIC_URL.length)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, body) },
        body: new URLSearchParams(body).toString(),
      });
      const text = await response.text();
      expect(response.status, text).toBeLessThan(300);
      return text;
    };
    return {
      to: form.To,
      async answer() {
        const twiml = await post(call.form.get('Url'), { CallStatus: 'in-progress' });
        expect(twiml).toContain('<Hangup');
        await post(call.form.get('StatusCallback'), { CallStatus: 'completed', CallDuration: '4' });
      },
      async busy() {
        await post(call.form.get('StatusCallback'), { CallStatus: 'busy', CallDuration: '0' });
      },
    };
  }

  return {
    serverEnv: { TWILIO_API_URL: rest.url, PUBLIC_URL },
    fromNumber: '+551130000038',
    provider: 'twilio',
    async start(server, adminToken, member, baseUrl) {
      base = baseUrl;
      const response = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: adminToken, payload: { twilio_sid: ACCOUNT, twilio_token: AUTH_TOKEN } });
      expect(response.statusCode, response.body).toBeLessThan(300);
      // As main.ts starts it; a short interval, so that a test waits little for each pass.
      dispatcher = createDispatcher(server.ctx, { calls: coreCampaignCalls(server.ctx), intervalMs: 200 });
      dispatcher.start();
    },
    async callTo(to) {
      const waiting = () => rest.calls.find((call) => call.form.get('To') === to && !taken.has(call.sid));
      await expect.poll(() => waiting() !== undefined, { timeout: 30_000 }).toBe(true);
      const call = waiting()!;
      taken.add(call.sid);
      return placedCall(call);
    },
    async close() {
      await dispatcher?.stop();
      await rest.close();
    },
  };
}
