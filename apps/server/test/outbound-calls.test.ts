/**
 * Outbound calls end to end (docs/outbound.md): the API's refusals, a call placed through the
 * official Twilio library against a local server speaking Twilio's REST API (twilio-rest.ts), and
 * Twilio's callbacks as Twilio signs them — the answer starting the plan, asynchronous machine
 * detection, duplicates — with the outcome read by GET, the plan webhook and the signed status URL.
 * How calls end otherwise is in outbound-calls-endings.test.ts.
 */
import type { OutboundCall } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { createPlanWebhookDispatcher } from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import { webhookSecretOf } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { errorOf } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { ACCOUNT, asTwilio, CALLEE, callForm, callOf, createdFor, deliveriesOf, FROM, guest, member, other, OTHER_FROM, outcomes, place, PUBLIC_URL, received, receiverUrl, server, storedCalls, twilioRest, useOutboundCallsServer } from './outbound-calls-fixtures.ts';

useOutboundCallsServer();

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
