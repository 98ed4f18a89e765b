/**
 * Outbound calls that do not simply run their plan (docs/outbound.md): every unanswered outcome,
 * one call to a number at a time, a status callback that met the database away, a campaign's calls,
 * calls whose end never came, and the licence. The set-up is in outbound-calls-fixtures.ts.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../src/errors.ts';
import { takeDatabaseAway } from './database-away.ts';
import { errorOf, q } from './harness.ts';
import { asTwilio, CALLEE, callForm, callOf, createdFor, deliveriesOf, FROM, member, outcomes, place, receiverUrl, server, storedCalls, twilioRest, useOutboundCallsServer } from './outbound-calls-fixtures.ts';

useOutboundCallsServer();

// National numbers are read with the tenant's country, as the answered call in outbound-calls.test.ts sets it.
beforeAll(async () => {
  await server.ctx.db.updateTable('tenants').set({ country: 'BR' }).where('id', '=', member.tenantId).execute();
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
