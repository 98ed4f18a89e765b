/**
 * The set-up of outbound-calls.test.ts and outbound-calls-endings.test.ts: a server whose tenant
 * places calls through a local server speaking Twilio's REST API, a receiver for the plan webhook,
 * Twilio's signed callbacks, and the reads of what a call left. The bindings are set by
 * useOutboundCallsServer's hooks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundCall } from '@voxplan/contracts';
import twilio from 'twilio';
import { afterAll, beforeAll, expect } from 'vitest';
import type { OutboundOutcome } from '../src/modules/outbound-calls/outbound-calls.types.ts';
import { createTenantMember, createTenantUser, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { startTwilioRest, type TwilioRest } from './twilio-rest.ts';

export const PUBLIC_URL = 'https://voice.example.com';
export const ACCOUNT = 'AC00000000000000000000000000000038';
export const TOKEN = 'twilio-auth-token-38';
export const FROM = '+551130003800';
export const OTHER_FROM = '+551130003801';
export const CALLEE = '+5511987650038';

export let server: TestServer;
export let twilioRest: TwilioRest;
export let member: TenantMember;
export let guest: TenantMember;
export let other: TenantMember;
export let planId: number;
export let receiver: http.Server;
export let receiverUrl: string;
export const received: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
export const outcomes: OutboundOutcome[] = [];

export type Form = Record<string, string>;

/** The form Twilio posts for an outbound-api call at `CallStatus`, and more. */
export const callForm = (callSid: string, extra: Form = {}): Form => ({
  AccountSid: ACCOUNT,
  CallSid: callSid,
  From: FROM,
  To: CALLEE,
  Direction: 'outbound-api',
  CallStatus: 'in-progress',
  ...extra,
});

/** Posts to one of our URLs Twilio was given (absolute, under PUBLIC_URL), signed as Twilio signs it. */
export function asTwilio(url: string, form: Form, token = TOKEN) {
  if (!url.startsWith(PUBLIC_URL)) throw new Error(`${url} is not under ${PUBLIC_URL}`);
  return server.app.inject({
    method: 'POST',
    url: url.slice(PUBLIC_URL.length),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(token, url, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

export const place = (payload: Record<string, unknown>, token = member.token) => server.call({ method: 'POST', url: '/outbound-calls', token, payload });
export const callOf = async (sessionId: string, token = member.token) => {
  const response = await server.call({ method: 'GET', url: `/outbound-calls/${sessionId}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<OutboundCall>();
};
export const storedCalls = async () => Number((await server.ctx.db.selectFrom('outbound_calls').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
export const deliveriesOf = (sessionId: string) =>
  server.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['event', 'url', 'payload'])
    .where('payload', 'like', `%${sessionId}%`)
    .orderBy('id')
    .execute();

/** A placed call's Twilio request, found by its session. */
export function createdFor(sessionId: string) {
  const created = twilioRest.calls.find((call) => call.form.get('Url')?.includes(sessionId));
  if (!created) throw new Error(`no call created for ${sessionId}`);
  return created;
}

/** Starts the server, the Twilio stand-in and the webhook receiver for the file. */
export function useOutboundCallsServer(): void {
  beforeAll(async () => {
    twilioRest = await startTwilioRest({ [ACCOUNT]: TOKEN });
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    server = await startTestServer({ PUBLIC_URL, TWILIO_API_URL: twilioRest.url });
    server.ctx.outboundCalls.onOutcome(async (outcome) => void outcomes.push(outcome));
    const admin = await server.login();
    member = await createTenantMember(server, admin, 'outbound');
    guest = await createTenantUser(server, admin, member.tenantId, 'outbound-guest', 'guest');
    other = await createTenantMember(server, admin, 'outbound-other');
    for (const tenant of [member, other]) {
      const integrations = await server.call({ method: 'PATCH', url: `/tenants/${tenant.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } });
      expect(integrations.statusCode, integrations.body).toBe(200);
    }
    // The receiver of the plan webhook and the status URL lives on 127.0.0.1.
    const setting = (await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name: 'outbound_allow_loopback' } })}`, token: admin })).json<{ id: number }[]>()[0]!;
    expect((await server.call({ method: 'PATCH', url: `/configurations/${setting.id}`, token: admin, payload: { value: 'true' } })).statusCode).toBe(200);

    planId = await storePlan(server.ctx, member.tenantId, {
      name: 'Payment reminder',
      settings: { webhook: `${receiverUrl}/plan` },
      nodes: [
        planNode('start', 'start'),
        planNode('hello', 'play_message', { voice_text: 'Hello {{name}}, your invoice {{invoice}} is due.' }),
        planNode('ask', 'voice_menu', { voice_text: 'Press 1 to confirm.', options: [{ digits: '1', label: 'Confirm' }] }),
        planNode('told', 'play_message', { voice_text: 'Answered by {{answered_by}}.' }),
        planNode('bye', 'hangup'),
      ],
      edges: [planEdge('start', 'next', 'hello'), planEdge('hello', 'next', 'ask'), planEdge('ask', '1', 'told'), planEdge('told', 'next', 'bye')],
    });
    const number = async (tenant: TenantMember, payload: Record<string, unknown>) => {
      const response = await server.call({ method: 'POST', url: '/numbers', token: tenant.token, payload });
      expect(response.statusCode, response.body).toBe(201);
    };
    await number(member, { number: FROM, provider: 'twilio', voice_plan_id: planId });
    await number(member, { number: '+551140003800', provider: 'webchat', webchat_origins: ['https://shop.example.com'] });
    await number(other, { number: OTHER_FROM, provider: 'twilio' });
  });

  afterAll(async () => {
    await server?.close();
    await twilioRest?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });
}
