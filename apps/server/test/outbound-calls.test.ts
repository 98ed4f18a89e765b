/**
 * Outbound calls end to end (docs/outbound.md): the API's refusals, a call placed through the
 * official Twilio library against a local server speaking Twilio's REST API (twilio-rest.ts), and
 * Twilio's callbacks as Twilio signs them — the answer starting the plan, asynchronous machine
 * detection, every unanswered outcome, duplicates — with the outcome read by GET, the plan webhook
 * and the signed status URL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundCall } from '@voxplan/contracts';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../src/errors.ts';
import type { OutboundOutcome } from '../src/modules/outbound-calls/outbound-calls.types.ts';
import { createPlanWebhookDispatcher } from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import { webhookSecretOf } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { takeDatabaseAway } from './database-away.ts';
import { createTenantMember, createTenantUser, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { startTwilioRest, type TwilioRest } from './twilio-rest.ts';

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000038';
const TOKEN = 'twilio-auth-token-38';
const FROM = '+551130003800';
const OTHER_FROM = '+551130003801';
const CALLEE = '+5511987650038';

let server: TestServer;
let twilioRest: TwilioRest;
let member: TenantMember;
let guest: TenantMember;
let other: TenantMember;
let planId: number;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
const outcomes: OutboundOutcome[] = [];

type Form = Record<string, string>;

/** The form Twilio posts for an outbound-api call at `CallStatus`, and more. */
const callForm = (callSid: string, extra: Form = {}): Form => ({
  AccountSid: ACCOUNT,
  CallSid: callSid,
  From: FROM,
  To: CALLEE,
  Direction: 'outbound-api',
  CallStatus: 'in-progress',
  ...extra,
});

/** Posts to one of our URLs Twilio was given (absolute, under PUBLIC_URL), signed as Twilio signs it. */
function asTwilio(url: string, form: Form, token = TOKEN) {
  if (!url.startsWith(PUBLIC_URL)) throw new Error(`${url} is not under ${PUBLIC_URL}`);
  return server.app.inject({
    method: 'POST',
    url: url.slice(PUBLIC_URL.length),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(token, url, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

const place = (payload: Record<string, unknown>, token = member.token) => server.call({ method: 'POST', url: '/outbound-calls', token, payload });
const callOf = async (sessionId: string, token = member.token) => {
  const response = await server.call({ method: 'GET', url: `/outbound-calls/${sessionId}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<OutboundCall>();
};
const storedCalls = async () => Number((await server.ctx.db.selectFrom('outbound_calls').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const deliveriesOf = (sessionId: string) =>
  server.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['event', 'url', 'payload'])
    .where('payload', 'like', `%${sessionId}%`)
    .orderBy('id')
    .execute();

/** A placed call's Twilio request, found by its session. */
function createdFor(sessionId: string) {
  const created = twilioRest.calls.find((call) => call.form.get('Url')?.includes(sessionId));
  if (!created) throw new Error(`no call created for ${sessionId}`);
  return created;
}

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

describe('POST /outbound-calls refuses, and nothing is stored or dialled', () => {
  test('bad input, another tenant’s number, a web chat number, the do-not-call list, a guest', async () => {
    const before = { stored: await storedCalls(), requests: twilioRest.requests.length };
    const refusals: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ from: FROM, to: 'call me maybe' }, 400, 'invalid_phone_number', 'to'],
      [{ from: FROM, to: '+55 11 1234' }, 400, 'invalid_phone_number', 'to'],
      [{ from: OTHER_FROM, to: CALLEE }, 400, 'outbound_number_not_found', 'from'],
      [{ from: '+551140003800', to: CALLEE }, 400, 'outbound_number_cannot_call', 'from'],
      [{ from: FROM, to: CALLEE, status_url: 'http://hooks.example.com/outcome' }, 400, 'invalid_input', 'status_url'],
      [{ from: FROM, to: CALLEE, variables: { 'not a name': 'x' } }, 400, 'invalid_input'],
      [{ from: FROM }, 400, 'invalid_input'],
    ];
    for (const [payload, status, code, path] of refusals) {
      const response = await place(payload);
      expect(response.statusCode, `${JSON.stringify(payload)}: ${response.body}`).toBe(status);
      expect(errorOf(response).code).toBe(code);
      if (path) expect(errorOf(response).details?.map((detail) => detail.path)).toContain(path);
    }
    // The list holds the number in E.164; the request writes it as people do.
    const now = new Date().toISOString();
    await server.ctx.db.insertInto('do_not_call').values({ tenant_id: member.tenantId, number: '+5511987650099', reason: 'asked', added_by: 'test', created_time: now, updated_time: now }).execute();
    const listed = await place({ from: FROM, to: '+55 (11) 98765-0099' });
    expect(listed.statusCode, listed.body).toBe(422);
    expect(errorOf(listed).code).toBe('outbound_do_not_call');

    const byGuest = await place({ from: FROM, to: CALLEE }, guest.token);
    expect(byGuest.statusCode).toBe(403);
    expect(errorOf(byGuest).code).toBe('readonly_only');

    expect(await storedCalls()).toBe(before.stored);
    expect(twilioRest.requests.length).toBe(before.requests);
  });

  test('Twilio’s refusals become catalogue codes: 21211, 20003, 429; nothing is kept', async () => {
    const stored = await storedCalls();
    twilioRest.refuseTo('+5511987650077');
    const invalid = await place({ from: FROM, to: '+5511987650077' });
    expect(invalid.statusCode, invalid.body).toBe(400);
    expect(errorOf(invalid)).toMatchObject({ code: 'invalid_phone_number', details: [{ path: 'to', message: expect.stringContaining('21211') }] });

    twilioRest.refuseTooMany(1);
    const tooMany = await place({ from: FROM, to: CALLEE });
    expect(tooMany.statusCode, tooMany.body).toBe(429);
    expect(errorOf(tooMany).code).toBe('outbound_provider_rate_limited');

    const admin = await server.login();
    const wrong = await server.call({ method: 'PATCH', url: `/tenants/${other.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: 'not-the-token' } });
    expect(wrong.statusCode).toBe(200);
    const refused = await place({ from: OTHER_FROM, to: CALLEE, plan_id: undefined }, other.token);
    // The other tenant's number has no plan: refused before Twilio is asked.
    expect(errorOf(refused).code).toBe('outbound_no_plan');
    const otherPlan = await storePlan(server.ctx, other.tenantId, { name: 'Other', nodes: [planNode('start', 'start'), planNode('bye', 'hangup')], edges: [planEdge('start', 'next', 'bye')] });
    const auth = await place({ from: OTHER_FROM, to: CALLEE, plan_id: otherPlan }, other.token);
    expect(auth.statusCode, auth.body).toBe(422);
    expect(errorOf(auth).code).toBe('outbound_provider_auth_refused');
    // Another tenant's plan is not this one's to run.
    const foreignPlan = await place({ from: FROM, to: CALLEE, plan_id: otherPlan });
    expect(errorOf(foreignPlan).code).toBe('outbound_no_plan');

    expect(twilioRest.requests.slice(-3).map((request) => request.status)).toEqual([400, 429, 401]);
    expect(await storedCalls()).toBe(stored);
  });
});

describe('an answered call runs the plan, outbound', () => {
  test('the library’s request, the answer, asynchronous detection, a key, the end, duplicates, and the outcome three ways', async () => {
    // A national number is read with the tenant's country.
    await server.ctx.db.updateTable('tenants').set({ country: 'BR' }).where('id', '=', member.tenantId).execute();
    const accepted = await place({ from: FROM, to: '(11) 98765-0038', variables: { name: 'Ana', invoice: 'F-17', answered_by: 'forged' }, machine_detection: true, status_url: `${receiverUrl}/status` });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const sessionId = accepted.json<{ session_id: string }>().session_id;

    // What the library sent Twilio, field by field.
    const created = createdFor(sessionId);
    expect(created.account).toBe(ACCOUNT);
    const form = created.form;
    expect(form.get('To')).toBe(CALLEE);
    expect(form.get('From')).toBe(FROM);
    expect(form.get('Url')).toBe(`${PUBLIC_URL}/api/v1/hooks/twilio/voice?session=${sessionId}&on=outbound`);
    expect(form.get('StatusCallback')).toBe(`${PUBLIC_URL}/api/v1/hooks/twilio/status?session=${sessionId}&on=outbound`);
    expect(form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect(form.get('Timeout')).toBe('30');
    expect(form.get('MachineDetection')).toBe('Enable');
    expect(form.get('AsyncAmd')).toBe('true');
    expect(form.get('AsyncAmdStatusCallback')).toBe(`${PUBLIC_URL}/api/v1/hooks/twilio/status?session=${sessionId}&on=amd`);
    expect(await callOf(sessionId)).toMatchObject({ state: 'dialing', from: FROM, to: CALLEE, plan_name: 'Payment reminder', dial_status: null, answered_by: null, report: null });

    const status = form.get('StatusCallback')!;
    for (const callStatus of ['initiated', 'ringing']) expect((await asTwilio(status, callForm(created.sid, { CallStatus: callStatus }))).statusCode).toBe(204);
    // A forged answer is refused and starts nothing.
    expect((await asTwilio(form.get('Url')!, callForm(created.sid), 'another-token')).statusCode).toBe(403);

    const answered = await asTwilio(form.get('Url')!, callForm(created.sid));
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.body).toContain('Hello Ana, your invoice F-17 is due.');
    expect(answered.body).toContain('Press 1 to confirm.');
    // Twilio may ask again: the same first turn.
    expect((await asTwilio(form.get('Url')!, callForm(created.sid))).body).toBe(answered.body);
    expect(await callOf(sessionId)).toMatchObject({ state: 'in_progress', dial_status: 'answer', answered_by: 'unknown' });

    // The detection's answer comes while the plan runs, twice; the blocks after it see it.
    for (let times = 0; times < 2; times++) {
      expect((await asTwilio(form.get('AsyncAmdStatusCallback')!, callForm(created.sid, { AnsweredBy: 'machine_end_beep', MachineDetectionDuration: '2400' }))).statusCode).toBe(204);
    }
    // An API key of the tenant reads it too.
    const key = (await server.call({ method: 'POST', url: '/api-keys', token: member.token, payload: { name: 'crm' } })).json<{ key: string }>().key;
    const byKey = await server.call({ method: 'GET', url: `/outbound-calls/${sessionId}`, headers: { 'x-api-key': key } });
    expect(byKey.json<OutboundCall>()).toMatchObject({ state: 'in_progress', answered_by: 'machine' });
    // Another tenant does not.
    expect((await server.call({ method: 'GET', url: `/outbound-calls/${sessionId}`, token: other.token })).statusCode).toBe(404);

    const gather = /<Gather [^>]*action="([^"]+)"/.exec(answered.body)![1]!.replaceAll('&amp;', '&');
    const told = await asTwilio(gather, callForm(created.sid, { Digits: '1' }));
    expect(told.body).toContain('Answered by machine.');
    expect(told.body).toContain('<Hangup/>');

    for (let times = 0; times < 2; times++) expect((await asTwilio(status, callForm(created.sid, { CallStatus: 'completed', CallDuration: '21' }))).statusCode).toBe(204);
    const ended = await callOf(sessionId);
    expect(ended).toMatchObject({ state: 'ended', dial_status: 'answer', answered_by: 'machine' });
    expect(ended.report).toMatchObject({ session_id: sessionId, direction: 'outbound', dial_status: 'answer', caller: FROM, called: CALLEE, provider: 'twilio' });
    expect(ended.report!.variables).toMatchObject({ name: 'Ana', invoice: 'F-17', answered_by: 'machine' });
    expect(ended.report!.nodes.map((node) => node.node_id)).toEqual(['start', 'hello', 'ask', 'told', 'bye']);
    expect(await server.ctx.db.selectFrom('call_reports').select('id').where('session_id', '=', sessionId).execute()).toHaveLength(1);

    // The campaigns' listener: answered once, ended once.
    expect(outcomes.filter((outcome) => outcome.session_id === sessionId)).toEqual([
      { session_id: sessionId, tenant_id: member.tenantId, campaign_id: null, dial_status: 'answer', answered_by: 'unknown', ended: false },
      { session_id: sessionId, tenant_id: member.tenantId, campaign_id: null, dial_status: 'answer', answered_by: 'machine', ended: true },
    ]);

    // The plan webhook (started, ended) and the status URL, signed with the tenant's key.
    expect((await deliveriesOf(sessionId)).map((row) => [row.event, row.url])).toEqual([
      ['session.started', `${receiverUrl}/plan`],
      ['session.ended', `${receiverUrl}/plan`],
      ['outbound_call.ended', `${receiverUrl}/status`],
    ]);
    await createPlanWebhookDispatcher(server.ctx).runOnce();
    const { secret } = await webhookSecretOf(server.ctx, server.ctx.db, member.tenantId);
    const outcome = received.find((request) => request.path === '/status' && request.body.includes(sessionId))!;
    expect(outcome.headers['x-voxplan-event']).toBe('outbound_call.ended');
    expect(isValidPlanWebhookSignature(secret, { body: outcome.body, timestamp: outcome.headers['x-voxplan-timestamp'] as string, signature: outcome.headers['x-voxplan-signature'] as string })).toBe(true);
    expect(JSON.parse(outcome.body)).toMatchObject({ event: 'outbound_call.ended', data: { session_id: sessionId, from: FROM, to: CALLEE, dial_status: 'answer', answered_by: 'machine', report: { direction: 'outbound' } } });
    const started = received.find((request) => request.path === '/plan' && request.body.includes(sessionId) && request.body.includes('session.started'))!;
    expect(JSON.parse(started.body)).toMatchObject({ data: { session_id: sessionId, direction: 'outbound', caller: FROM, called: CALLEE } });
  });
});

describe('detection before the answer', () => {
  test('an AnsweredBy that comes before Twilio asks for the plan is there from the first block', async () => {
    const { session_id: sessionId } = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to: '+5511987650043', variables: { name: 'Davi', invoice: 'F-18' }, machine_detection: true });
    const created = createdFor(sessionId);
    expect((await asTwilio(created.form.get('AsyncAmdStatusCallback')!, callForm(created.sid, { AnsweredBy: 'human' }))).statusCode).toBe(204);
    const answered = await asTwilio(created.form.get('Url')!, callForm(created.sid));
    expect(answered.body).toContain('Hello Davi');
    const gather = /<Gather [^>]*action="([^"]+)"/.exec(answered.body)![1]!.replaceAll('&amp;', '&');
    expect((await asTwilio(gather, callForm(created.sid, { Digits: '1' }))).body).toContain('Answered by human.');
    await asTwilio(created.form.get('StatusCallback')!, callForm(created.sid, { CallStatus: 'completed' }));
    expect(await callOf(sessionId)).toMatchObject({ state: 'ended', answered_by: 'human', report: { variables: { answered_by: 'human' } } });
  });
});

describe('a call nobody answered has its report, and the plan never runs', () => {
  test.each([
    ['busy', 'busy'],
    ['no-answer', 'no_answer'],
    ['failed', 'failed'],
    ['canceled', 'cancel'],
  ])('CallStatus %s: dial status %s, once however often Twilio tells it', async (callStatus, dialStatus) => {
    const accepted = await place({ from: FROM, to: CALLEE, variables: { name: 'Bia' }, status_url: `${receiverUrl}/status` });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const sessionId = accepted.json<{ session_id: string }>().session_id;
    const created = createdFor(sessionId);
    expect(created.form.get('MachineDetection')).toBeNull();
    for (let times = 0; times < 2; times++) {
      const told = await asTwilio(created.form.get('StatusCallback')!, callForm(created.sid, { CallStatus: callStatus }));
      expect(told.statusCode, told.body).toBe(204);
    }
    const call = await callOf(sessionId);
    expect(call).toMatchObject({ state: 'ended', dial_status: dialStatus, answered_by: null });
    expect(call.report).toMatchObject({ session_id: sessionId, direction: 'outbound', dial_status: dialStatus, disposition: 'missed', nodes: [], caller: FROM, called: CALLEE });
    expect(call.report!.variables).toEqual({ name: 'Bia' });
    expect(await server.ctx.db.selectFrom('sessions').select('id').where('id', '=', sessionId).execute()).toEqual([]);
    // It shows among the reports, as outbound.
    const reports = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId } })}`, token: member.token });
    expect(reports.json<Array<{ direction: string; dial_status: string }>>()).toMatchObject([{ direction: 'outbound', dial_status: dialStatus }]);
    expect((await deliveriesOf(sessionId)).map((row) => row.event)).toEqual(['session.ended', 'outbound_call.ended']);
    expect(JSON.parse((await deliveriesOf(sessionId))[0]!.payload)).toMatchObject({ direction: 'outbound', dial_status: dialStatus, report: { dial_status: dialStatus } });
    expect(outcomes.filter((outcome) => outcome.session_id === sessionId)).toEqual([
      { session_id: sessionId, tenant_id: member.tenantId, campaign_id: null, dial_status: dialStatus, answered_by: null, ended: true },
    ]);
    // An answer after the end starts nothing.
    const late = await asTwilio(created.form.get('Url')!, callForm(created.sid));
    expect(late.body).not.toContain('Hello Bia');
  });
});

describe('one call to a number at a time', () => {
  test('a number a campaign rings, or this API already calls, answers 409 outbound_number_in_call, nothing stored or dialled; free again once it ends', async () => {
    const to = '+5511987650044';
    const campaignCall = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to, variables: {}, machine_detection: false, campaign_id: 8 });
    const stored = await storedCalls();
    const dialled = twilioRest.calls.length;
    // In any form a person writes it, it is the same number.
    for (const written of [to, '(11) 98765-0044']) {
      const refused = await place({ from: FROM, to: written });
      expect(refused.statusCode, refused.body).toBe(409);
      expect(errorOf(refused).code).toBe('outbound_number_in_call');
    }
    expect(await storedCalls()).toBe(stored);
    expect(twilioRest.calls).toHaveLength(dialled);
    // Once its call ends, the number is free.
    const ringing = createdFor(campaignCall.session_id);
    expect((await asTwilio(ringing.form.get('StatusCallback')!, callForm(ringing.sid, { To: to, CallStatus: 'busy' }))).statusCode).toBe(204);
    const accepted = await place({ from: FROM, to });
    expect(accepted.statusCode, accepted.body).toBe(202);
    // Now the API's call rings it: the same answer, for a campaign's call too.
    expect(errorOf(await place({ from: FROM, to })).code).toBe('outbound_number_in_call');
    await expect(server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to, variables: {}, machine_detection: false, campaign_id: 8 })).rejects.toMatchObject({ code: 'outbound_number_in_call', statusCode: 409 });
    const created = createdFor(accepted.json<{ session_id: string }>().session_id);
    expect((await asTwilio(created.form.get('StatusCallback')!, callForm(created.sid, { To: to, CallStatus: 'no-answer' }))).statusCode).toBe(204);
  });
});

describe('a status callback that met the database away', () => {
  test('is answered 204, kept, and stored once the database is back: the call ends with its dial status, its report and outcome told', async () => {
    const accepted = await place({ from: FROM, to: '+5511987650043', variables: {} });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const sessionId = accepted.json<{ session_id: string }>().session_id;
    const created = createdFor(sessionId);
    const bringBack = takeDatabaseAway(server.ctx.dialect);
    let told: Awaited<ReturnType<typeof asTwilio>>;
    try {
      told = await asTwilio(created.form.get('StatusCallback')!, callForm(created.sid, { To: '+5511987650043', CallStatus: 'no-answer' }));
    } finally {
      bringBack();
    }
    // Twilio does not send it again (pending-ends.ts): it must not wait for the stale sweep's 15 minutes.
    expect(told.statusCode, told.body).toBe(204);
    await expect.poll(async () => (await callOf(sessionId)).state, { timeout: 10_000 }).toBe('ended');
    expect(await callOf(sessionId)).toMatchObject({ dial_status: 'no_answer', report: { direction: 'outbound', dial_status: 'no_answer', disposition: 'missed' } });
    expect(outcomes.filter((outcome) => outcome.session_id === sessionId)).toEqual([
      { session_id: sessionId, tenant_id: member.tenantId, campaign_id: null, dial_status: 'no_answer', answered_by: null, ended: true },
    ]);
  });
});

describe('a campaign’s calls', () => {
  test('the campaign is kept on the call, its outcomes and its report, and reports filter by it', async () => {
    const answeredCall = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to: CALLEE, variables: { name: 'Caio' }, machine_detection: false, campaign_id: 7, ring_timeout_s: 45 });
    const busyCall = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to: '+5511987650039', variables: {}, machine_detection: false, campaign_id: 7 });
    const answered = createdFor(answeredCall.session_id);
    expect(answered.form.get('Timeout')).toBe('45');
    const started = await asTwilio(answered.form.get('Url')!, callForm(answered.sid));
    expect(started.body).toContain('Hello Caio');
    expect((await asTwilio(answered.form.get('StatusCallback')!, callForm(answered.sid, { CallStatus: 'completed' }))).statusCode).toBe(204);
    const busy = createdFor(busyCall.session_id);
    expect((await asTwilio(busy.form.get('StatusCallback')!, callForm(busy.sid, { CallStatus: 'busy' }))).statusCode).toBe(204);

    const reports = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { campaign_id: 7 }, order: ['id ASC'] })}`, token: member.token });
    expect(reports.statusCode, reports.body).toBe(200);
    expect(reports.json<Array<{ session_id: string; campaign_id: number; dial_status: string }>>()).toMatchObject([
      { session_id: answeredCall.session_id, campaign_id: 7, dial_status: 'answer' },
      { session_id: busyCall.session_id, campaign_id: 7, dial_status: 'busy' },
    ]);
    expect((await callOf(answeredCall.session_id)).report).toMatchObject({ campaign_id: 7, direction: 'outbound' });
    expect(outcomes.filter((outcome) => outcome.campaign_id === 7).map((outcome) => [outcome.session_id, outcome.dial_status, outcome.ended])).toEqual([
      [answeredCall.session_id, 'answer', false],
      [answeredCall.session_id, 'answer', true],
      [busyCall.session_id, 'busy', true],
    ]);
  });
});

describe('calls whose end never came', () => {
  test('still queued after 2 minutes, or ringing 15 minutes past their ring timeout, end as failed with a report', async () => {
    const lost = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: FROM, to: '+5511987650040', variables: {}, machine_detection: false, ring_timeout_s: 30 });
    const placedAt = Date.parse((await callOf(lost.session_id)).created_time);
    // A call stored by a process that died before Twilio answered.
    const orphan = 'outbound-orphan-38';
    const old = new Date(placedAt - 3 * 60_000).toISOString();
    const row = await server.ctx.db.selectFrom('outbound_calls').selectAll().where('session_id', '=', lost.session_id).executeTakeFirstOrThrow();
    await server.ctx.db.insertInto('outbound_calls').values({ ...row, session_id: orphan, called: '+5511987650045', state: 'queued', provider_call_id: null, created_time: old, updated_time: old }).execute();

    expect(await server.ctx.outboundCalls.sweepStale(new Date(placedAt + 60_000))).toEqual([orphan]);
    expect(await server.ctx.outboundCalls.sweepStale(new Date(placedAt + 14 * 60_000))).toEqual([]);
    expect(await server.ctx.outboundCalls.sweepStale(new Date(placedAt + 16 * 60_000))).toEqual([lost.session_id]);
    for (const sessionId of [orphan, lost.session_id]) {
      expect(await callOf(sessionId)).toMatchObject({ state: 'ended', dial_status: 'failed', report: { direction: 'outbound', dial_status: 'failed' } });
    }
  });
});

describe('the licence', () => {
  test('a call still ringing counts as running: past the licence’s sessions the next call is refused, and nothing is kept', async () => {
    const license = server.ctx.license;
    const original = license.admitSession;
    const counted: number[] = [];
    // A licence of one line, beside whatever the other tests left running.
    const running = await server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'waiting').where('is_test', '=', 0).where('provider', '<>', 'webchat').executeTakeFirstOrThrow();
    const max = Number(running.n) + 1;
    license.admitSession = async (session, count = 0) => {
      counted.push(count);
      if (count >= max) throw new AppError(403, 'license_sessions_limit_reached', undefined, undefined, { max });
    };
    try {
      const key = (await server.call({ method: 'POST', url: '/api-keys', token: member.token, payload: { name: 'dialler' } })).json<{ key: string }>().key;
      const first = await server.call({ method: 'POST', url: '/outbound-calls', headers: { 'x-api-key': key }, payload: { from: FROM, to: '+5511987650041' } });
      expect(first.statusCode, first.body).toBe(202);
      const stored = await storedCalls();
      const second = await server.call({ method: 'POST', url: '/outbound-calls', headers: { 'x-api-key': key }, payload: { from: FROM, to: '+5511987650042' } });
      expect(second.statusCode, second.body).toBe(403);
      expect(errorOf(second).code).toBe('license_sessions_limit_reached');
      expect(counted).toEqual([max - 1, max]);
      expect(await storedCalls()).toBe(stored);
      // The first rings on; once it ends, the line is free again.
      const created = createdFor(first.json<{ session_id: string }>().session_id);
      await asTwilio(created.form.get('StatusCallback')!, callForm(created.sid, { CallStatus: 'no-answer' }));
      expect((await server.call({ method: 'POST', url: '/outbound-calls', headers: { 'x-api-key': key }, payload: { from: FROM, to: '+5511987650042' } })).statusCode).toBe(202);
    } finally {
      license.admitSession = original;
    }
  });
});
