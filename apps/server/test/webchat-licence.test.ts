/**
 * Anonymous web chats against the licence (issue 26, item 4; docs/licence.md, "What a web chat
 * counts"). The key of a web chat is public, so anyone can open conversations from many addresses
 * with a copied Origin: with the default licence (10 calls and chats at once) twelve of them made
 * another tenant's Twilio call answer "not in service". Here a tenant's web chats meet the caps per
 * address and per number and the tenant's own share, and another tenant's call still starts.
 */
import { defaultLicenseLimits, type PhoneNumber } from '@voxplan/contracts';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, readFixture, storePlan } from './sessions-helpers.ts';
import { twilioCallForm } from './twilio-callbacks.ts';

const SITE = 'https://shop.example.com';
const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000026';
const TOKEN = 'twilio-auth-token-26';
const VOICE_NUMBER = '+551130002600';
const PER_NUMBER = 6;
const PER_ADDRESS = 2;

let server: TestServer;
let chatty: TenantMember;
let calling: TenantMember;
let first: PhoneNumber;
let second: PhoneNumber;
let ofCalling: PhoneNumber;

const waitingCall: FixtureDocument = {
  name: 'Waits',
  nodes: [planNode('start', 'start'), planNode('ask', 'voice_menu', { voice_text: 'Press 1 to leave.', options: [{ digits: '1', label: 'Leave' }] }), planNode('bye', 'hangup')],
  edges: [planEdge('start', 'next', 'ask'), planEdge('ask', '1', 'bye')],
};

async function createNumber(member: TenantMember, payload: Record<string, unknown>): Promise<PhoneNumber> {
  const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<PhoneNumber>();
}

/** A visitor's browser at `address` opening a conversation on a page of the allowed site. */
const openChat = (number: PhoneNumber, address: string) =>
  server.app.inject({ method: 'POST', url: `/api/v1/webchat/${number.webchat_key}/conversations`, remoteAddress: address, headers: { origin: SITE } });

/**
 * Twilio's first request for an inbound call, signed with the account's auth token over the URL it
 * called (https://www.twilio.com/docs/usage/webhooks/webhooks-security), form-encoded as Twilio
 * posts it (https://www.twilio.com/docs/voice/twiml#request-parameters).
 */
function twilioCall(callSid: string) {
  const url = '/api/v1/hooks/twilio/voice';
  const form = twilioCallForm({ account: ACCOUNT, callSid, from: '+14155550126', to: VOICE_NUMBER }, { CallStatus: 'ringing' });
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}${url}`, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

const waitingWebchats = async (tenantId: number) =>
  Number(
    (
      await server.ctx.db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('provider', '=', 'webchat')
        .where('status', '=', 'waiting')
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  // LICENSE_FILE '': no licence, so the defaults apply (10 calls and chats at once).
  server = await startTestServer({
    LICENSE_FILE: '',
    PUBLIC_URL,
    WEBCHAT_MAX_OPEN_PER_NUMBER: String(PER_NUMBER),
    WEBCHAT_MAX_OPEN_PER_ADDRESS: String(PER_ADDRESS),
  });
  const admin = await server.login();
  chatty = await createTenantMember(server, admin, 'anonymous-chats');
  calling = await createTenantMember(server, admin, 'phone-calls');
  const chatPlan = await storePlan(server.ctx, chatty.tenantId, readFixture('help-desk-chat'));
  first = await createNumber(chatty, { number: '+551140002601', provider: 'webchat', chat_plan_id: chatPlan, webchat_origins: [SITE] });
  second = await createNumber(chatty, { number: '+551140002602', provider: 'webchat', chat_plan_id: chatPlan, webchat_origins: [SITE] });
  const integrations = await server.call({ method: 'PATCH', url: `/tenants/${calling.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } });
  expect(integrations.statusCode, integrations.body).toBe(200);
  const voicePlan = await storePlan(server.ctx, calling.tenantId, waitingCall);
  const callingChatPlan = await storePlan(server.ctx, calling.tenantId, readFixture('help-desk-chat'));
  await createNumber(calling, { number: VOICE_NUMBER, provider: 'twilio', voice_plan_id: voicePlan });
  ofCalling = await createNumber(calling, { number: '+551140002603', provider: 'webchat', chat_plan_id: callingChatPlan, webchat_origins: [SITE] });
});
afterAll(() => server?.close());

describe("a tenant's anonymous web chats", () => {
  test('meet the caps per address and per number, then the tenant’s own share; another tenant’s Twilio call and web chat still start', async () => {
    expect(defaultLicenseLimits.concurrent_sessions).toBe(10);
    // One address: its share, then refused.
    for (let i = 0; i < PER_ADDRESS; i++) expect((await openChat(first, '198.51.100.1')).statusCode).toBe(200);
    const sameAddress = await openChat(first, '198.51.100.1');
    expect(sameAddress.statusCode).toBe(429);
    expect(errorOf(sameAddress)).toMatchObject({ code: 'webchat_address_busy', params: { max: PER_ADDRESS } });
    expect(sameAddress.headers['access-control-allow-origin']).toBe(SITE);
    // Many addresses: the number's share, then refused.
    for (let i = PER_ADDRESS; i < PER_NUMBER; i++) expect((await openChat(first, `198.51.100.${10 + i}`)).statusCode).toBe(200);
    const busyNumber = await openChat(first, '198.51.100.99');
    expect(busyNumber.statusCode).toBe(429);
    expect(errorOf(busyNumber)).toMatchObject({ code: 'webchat_number_busy', params: { max: PER_NUMBER } });
    // Another number of the same tenant, until the tenant holds as many web chats as the licence's calls and chats at once.
    for (let i = PER_NUMBER; i < 10; i++) expect((await openChat(second, `198.51.100.${50 + i}`)).statusCode).toBe(200);
    const pastShare = await openChat(second, '198.51.100.200');
    expect(pastShare.statusCode).toBe(403);
    expect(errorOf(pastShare)).toMatchObject({ code: 'license_sessions_limit_reached', params: { max: 10 } });
    expect(await waitingWebchats(chatty.tenantId)).toBe(10);

    // The other tenant's caller is answered by its plan, not told the number is not in service.
    const call = await twilioCall('CA-while-chats-wait');
    expect(call.statusCode).toBe(200);
    expect(call.body).toMatch(/<Say [^>]*>Press 1 to leave\.<\/Say>/);
    expect(call.body).not.toContain('not in service');
    // And its own web chat starts too: the share is the tenant's.
    expect((await openChat(ofCalling, '198.51.100.201')).statusCode).toBe(200);
    // The licence's count of calls and chats is the call alone.
    const licence = await server.call({ method: 'GET', url: '/license', token: await server.login() });
    expect(licence.json<{ usage: { concurrent_sessions: number } }>().usage.concurrent_sessions).toBe(1);
  });

  test("wait for the visitor's next message at most WEBCHAT_IDLE_TIMEOUT minutes (5), not the plan's 10", async () => {
    const opened = await openChat(ofCalling, '198.51.100.202');
    expect(opened.statusCode).toBe(200);
    const row = await server.ctx.db
      .selectFrom('sessions')
      .select(['last_activity_time', 'timeout_time'])
      .where('id', '=', opened.json<{ conversation_id: string }>().conversation_id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.timeout_time!) - Date.parse(row.last_activity_time)).toBe(5 * 60_000);
  });
});
