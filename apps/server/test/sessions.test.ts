import { describe, expect, test } from 'vitest';
import { createTransactionRunner } from '../src/db/write-batch.ts';
import { startChatSweeper } from '../src/modules/sessions/chat-sweeper.ts';
import { createProtocolGenerator, PROTOCOLS_RESERVED } from '../src/modules/sessions/protocols.ts';
import { createSessionRuntime } from '../src/modules/sessions/sessions.service.ts';
import { createTenantMember, dialect } from './harness.ts';
import { statementsOf } from './pg-statements.ts';
import { admin, CALLED, CALLER, callerLines, chat, clock, events, ids, member, pathOf, reportsOf, runtime, scripts, server, SOURCE_IP, storedEvents, tenantId, useSessionsServer, voiceCall } from './sessions-fixture.ts';
import { readFixture, storePlan } from './sessions-helpers.ts';

/**
 * Sessions kept in the database (issue 5): calls and chats through the fixture plans, chat
 * timeouts by the sweeper, reports, atomic turns, what a start asks, protocols. The blocks that call
 * out and two instances on one database are in sessions-calling-out.test.ts.
 */

useSessionsServer();

describe('a voice call through the menu to a destination', () => {
  const id = 'CA-voice-routed';

  test('ends routed, and its report has the fields of a call report', async () => {
    clock.set('2026-11-23T12:00:00.000Z');
    const started = await runtime.start(voiceCall(id));
    expect(started).toMatchObject({ session_id: id, revision: 1, status: 'waiting', duplicate: false, ignored: false, resumed: null, report: null });
    expect(started.entered.map((entry) => entry.node_id)).toEqual(['start', 'hours', 'welcome', 'rec', 'menu']);
    const protocol = /Your protocol is (\d{8}-\d{6})\./.exec((started.actions[0] as { text: string }).text)?.[1];
    expect(protocol).toMatch(/^20261123-\d{6}$/);
    expect(started.actions.slice(1)).toEqual([
      { type: 'record', format: 'mp3' },
      // In the server's language: neither the plan nor its tenant names one.
      { type: 'say', text: 'For sales press 1. For self service press 2.', language: 'en-US' },
      { type: 'gather', input: 'dtmf', timeout_s: 5, max_digits: 1, language: 'en-US' },
    ]);

    clock.advance(1);
    const chose = await runtime.handleTurn(id, `${id}:2`, { type: 'digits', digits: '1' });
    expect(chose).toMatchObject({ revision: 2, status: 'waiting', resumed: { node_id: 'menu', exit: '1' } });
    expect(chose.entered.map((entry) => entry.node_id)).toEqual(['route', 'sales_phone']);
    expect(chose.actions).toEqual([{ type: 'dial', destination_id: ids.salesDesk, name: 'Sales desk', uri: 'sip:sales@pbx.acme.example', timeout_s: 25 }]);

    clock.advance(1);
    const answered = await runtime.handleTurn(id, `${id}:3`, { type: 'dial_result', status: 'answer' });
    expect(answered).toMatchObject({ revision: 3, status: 'ended', actions: [{ type: 'hangup', cause: 'normal_clearing' }] });
    expect(answered.report).toMatchObject({
      tenant_id: tenantId,
      session_id: id,
      plan_id: ids.frontDesk,
      plan_name: 'Front desk',
      plan_version: 1,
      channel: 'voice',
      provider: 'twilio',
      direction: 'inbound',
      caller: CALLER,
      called: CALLED,
      source_ip: SOURCE_IP,
      protocol,
      last_node_plan_id: ids.frontDesk,
      last_node_id: 'sales_phone',
      last_node_type: 'destination',
      hangup_cause: 'normal_clearing',
      disposition: 'routed',
      dial_status: 'answer',
      failure: null,
      is_test: false,
      start_time: '2026-11-23T12:00:00.000Z',
      end_time: '2026-11-23T12:02:00.000Z',
      duration_s: 120,
    });
    expect(pathOf(answered.report)).toEqual(['start:next', 'hours:in_hours', 'welcome:next', 'rec:next', 'menu:1', 'route:voice', 'sales_phone:answer']);
    expect(answered.report?.pressed_digits).toEqual([{ plan_id: ids.frontDesk, node_id: 'menu', digits: '1', at: '2026-11-23T12:01:00.000Z' }]);

    // What the tenant reads through /reports is what the turn stored.
    expect(await reportsOf(id)).toEqual([answered.report]);
    expect(events.calls.filter((call) => call.event.session.id === id).map((call) => call.hook)).toEqual(['started', 'ended']);
    expect(events.calls.find((call) => call.hook === 'ended' && call.event.session.id === id)?.event.report).toEqual(answered.report);
  });

  test('a recording ready after the end updates the same report', async () => {
    const ready = await runtime.handleTurn(id, `${id}:recording`, { type: 'recording_ready', url: 'https://media.example/rec/1.mp3', duration_s: 95 });
    expect(ready).toMatchObject({ status: 'ended', ignored: false, actions: [] });
    // No AI key is configured, so the analysis fails with its code; the recording is on the report all the same.
    expect(ready.report?.recording).toEqual({ format: 'mp3', url: 'https://media.example/rec/1.mp3', duration_s: 95, status: 'failed', results: null, error: 'ai_key_not_found' });
    const [report] = await reportsOf(id);
    expect(report?.recording).toEqual(ready.report?.recording);
    expect(await reportsOf(id)).toHaveLength(1);
    expect(events.calls.filter((call) => call.event.session.id === id).map((call) => call.hook)).toEqual(['started', 'ended']);
  });

  test('events after the end are ignored, and stored so a redelivery stays ignored', async () => {
    const late = await runtime.handleTurn(id, `${id}:hangup`, { type: 'hangup' });
    expect(late).toMatchObject({ ignored: true, status: 'ended', actions: [], report: null, revision: 5 });
    expect((await runtime.handleTurn(id, `${id}:hangup`, { type: 'hangup' })).duplicate).toBe(true);
    expect((await reportsOf(id))[0]?.hangup_cause).toBe('normal_clearing');
  });
});

describe('a chat idle past its plan\'s session timeout', () => {
  test('is ended by the sweeper with the plan\'s chat_text, and gets its report', async () => {
    const id = 'chat-idle';
    clock.set('2026-11-23T13:00:00.000Z');
    const started = await runtime.start(chat(id));
    expect(started.actions.at(-1)).toMatchObject({ type: 'reply', text: 'How can we help?' });
    expect((await runtime.find(id))?.timeout_time).toBe('2026-11-23T13:15:00.000Z');

    // A message is activity: the plan's 15 minutes start again.
    clock.set('2026-11-23T13:10:00.000Z');
    await runtime.handleTurn(id, 'm1', { type: 'message', text: 'hello?' });
    expect((await runtime.find(id))?.timeout_time).toBe('2026-11-23T13:25:00.000Z');
    clock.set('2026-11-23T13:20:00.000Z');
    expect(await runtime.sweepTimeouts()).toEqual([]);

    clock.set('2026-11-23T13:25:00.000Z');
    expect(await runtime.sweepTimeouts()).toEqual([id]);
    const stored = await runtime.find(id);
    expect(stored).toMatchObject({ revision: 3, timeout_time: null, session: { status: 'ended', hangup_cause: 'session_timeout' } });
    const finalActions = [
      { type: 'reply', text: 'This chat was closed for inactivity.' },
      { type: 'hangup', cause: 'session_timeout' },
    ];
    const timeoutEvent = (await storedEvents(id)).at(-1)!;
    expect(timeoutEvent.event_id).toBe('timeout:2026-11-23T13:25:00.000Z');
    expect(JSON.parse(timeoutEvent.outcome)).toMatchObject({ status: 'ended', actions: finalActions });
    // Nobody waits on the sweeper's turn: its actions go to the channel through the hook.
    expect(events.calls.filter((call) => call.hook === 'unprompted' && call.event.session.id === id).map((call) => call.event.actions)).toEqual([finalActions]);

    const [report] = await reportsOf(id);
    expect(report).toMatchObject({ channel: 'chat', provider: 'webchat', hangup_cause: 'session_timeout', disposition: 'abandoned', last_node_id: 'menu', end_time: '2026-11-23T13:25:00.000Z', duration_s: 1500 });
    expect(await runtime.sweepTimeouts()).toEqual([]);
    expect(await reportsOf(id)).toHaveLength(1);
  });

  test('voice sessions and ended chats are never swept', async () => {
    clock.set('2026-11-23T14:00:00.000Z');
    await runtime.start(voiceCall('voice-waiting'));
    await runtime.start(chat('chat-done'));
    await runtime.handleTurn('chat-done', 'bye', { type: 'hangup' });
    clock.set('2026-11-24T14:00:00.000Z');
    expect(await runtime.sweepTimeouts()).toEqual([]);
    expect((await runtime.find('voice-waiting'))?.session.status).toBe('waiting');
  });

  test('the sweeper started by a server runs until it is stopped', async () => {
    clock.set('2026-11-25T09:00:00.000Z');
    await runtime.start(chat('chat-swept-alone'));
    clock.set('2026-11-25T09:15:00.000Z');
    const sweeper = startChatSweeper(runtime, { intervalMs: 20 });
    await expect.poll(async () => (await runtime.find('chat-swept-alone'))?.session.status).toBe('ended');
    await sweeper.stop();
    expect((await reportsOf('chat-swept-alone'))[0]?.hangup_cause).toBe('session_timeout');
  });
});

describe('turns are atomic', () => {
  test('two events for one session at once are both applied, one after the other', async () => {
    clock.set('2026-11-23T15:00:00.000Z');
    const id = 'chat-two-at-once';
    await runtime.start(chat(id));
    const [first, second] = await Promise.all([
      runtime.handleTurn(id, 'a', { type: 'message', text: 'first' }),
      runtime.handleTurn(id, 'b', { type: 'message', text: 'second' }),
    ]);
    expect([first.revision, second.revision].sort()).toEqual([2, 3]);
    expect([first.duplicate, second.duplicate]).toEqual([false, false]);
    expect((await callerLines(id)).sort()).toEqual(['first', 'second']);
    expect(await runtime.find(id)).toMatchObject({ revision: 3, session: { turns: 3 } });
    expect((await storedEvents(id)).map((event) => event.event_id).sort()).toEqual(['a', 'b', 'start']);
  });

  test('the same event delivered twice is applied once, in turn or at once', async () => {
    clock.set('2026-11-23T15:10:00.000Z');
    const id = 'chat-redelivered';
    await runtime.start(chat(id));
    const once = await runtime.handleTurn(id, 'wamid.1', { type: 'message', text: 'once' });
    const again = await runtime.handleTurn(id, 'wamid.1', { type: 'message', text: 'once' });
    expect(again).toEqual({ ...once, duplicate: true, report: null });
    const twins = await Promise.all([
      runtime.handleTurn(id, 'wamid.2', { type: 'message', text: 'twice' }),
      runtime.handleTurn(id, 'wamid.2', { type: 'message', text: 'twice' }),
    ]);
    expect(twins.map((outcome) => outcome.duplicate).sort()).toEqual([false, true]);
    expect(twins[0]!.actions).toEqual(twins[1]!.actions);
    expect(await callerLines(id)).toEqual(['once', 'twice']);
    expect((await runtime.find(id))?.revision).toBe(3);
  });

  test('starting a session id again answers its first turn, without a second session', async () => {
    clock.set('2026-11-23T15:20:00.000Z');
    const first = await runtime.start(voiceCall('CA-started-twice'));
    const again = await runtime.start(voiceCall('CA-started-twice'));
    expect(again).toEqual({ ...first, duplicate: true });
    const rows = await server.ctx.db.selectFrom('sessions').select('id').where('id', '=', 'CA-started-twice').execute();
    expect(rows).toHaveLength(1);
    expect(events.calls.filter((call) => call.hook === 'started' && call.event.session.id === 'CA-started-twice')).toHaveLength(1);
  });

  test('a hook that fails fails the turn, and nothing of the turn is stored', async () => {
    clock.set('2026-11-23T15:30:00.000Z');
    const id = 'CA-hook-fails';
    await runtime.start(voiceCall(id));
    await runtime.handleTurn(id, 'digits', { type: 'digits', digits: '1' });
    events.failOn = 'ended';
    try {
      await expect(runtime.handleTurn(id, 'answer', { type: 'dial_result', status: 'answer' })).rejects.toThrow('the ended hook failed');
    } finally {
      events.failOn = null;
    }
    expect(await runtime.find(id)).toMatchObject({ revision: 2, session: { status: 'waiting' } });
    expect(await reportsOf(id)).toEqual([]);
    expect((await storedEvents(id)).map((event) => event.event_id)).toEqual(['start', 'digits']);
    // Delivered again, the event now goes through.
    expect((await runtime.handleTurn(id, 'answer', { type: 'dial_result', status: 'answer' })).report).toMatchObject({ disposition: 'routed' });
  });

  test('unknown sessions, other tenants\' sessions and bad ids are refused with catalogue codes', async () => {
    await expect(runtime.handleTurn('nobody', 'e1', { type: 'hangup' })).rejects.toMatchObject({ statusCode: 404, code: 'session_not_found' });
    await runtime.start(voiceCall('CA-other-tenant'));
    await expect(runtime.handleTurn('CA-other-tenant', 'e1', { type: 'hangup' }, { tenantId: tenantId + 1000 })).rejects.toMatchObject({ code: 'session_not_found' });
    await expect(runtime.handleTurn('CA-other-tenant', '', { type: 'hangup' })).rejects.toMatchObject({ statusCode: 400, code: 'invalid_input' });
    await expect(runtime.handleTurn('CA-other-tenant', 'x'.repeat(201), { type: 'hangup' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(runtime.start({ ...voiceCall('y'.repeat(201)) })).rejects.toMatchObject({ code: 'invalid_input' });
    expect((await runtime.find('CA-other-tenant'))?.session.status).toBe('waiting');
  });

  test('a session no channel named gets an id that sorts by when it started', async () => {
    const { id: _named, ...unnamed } = chat('unused');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await runtime.start(unnamed)).session_id);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(5);
  });

  test('a plan that does not exist ends the session as failed, with a report', async () => {
    const outcome = await runtime.start(voiceCall('CA-no-plan', 999_999));
    expect(outcome).toMatchObject({ status: 'ended', actions: [{ type: 'hangup', cause: 'engine_error' }] });
    expect(outcome.report).toMatchObject({ disposition: 'failed', failure: { code: 'plan_not_found' } });
  });
});

describe('a call\'s end in one statement, where no hook needs the transaction', () => {
  test('its event, report and rollups commit with the turn, once; the end that lost the race stores no second report, counts nothing again and runs no hook again', async () => {
    clock.set('2026-11-23T15:45:00.000Z');
    const ended: string[] = [];
    // On PostgreSQL such an end is one statement (storeEnd); on SQLite the turn's transaction, as always.
    const events = { needsTransaction: () => false, onEnded: ({ session }: { session: { id: string } }) => Promise.resolve(void ended.push(session.id)) };
    const [one, two] = [createSessionRuntime(server.ctx, { scripts, clock, events }), createSessionRuntime(server.ctx, { scripts, clock, events })];
    const rolledUp = async () =>
      Number(
        (await server.ctx.db.selectFrom('stats_sessions').select((eb) => eb.fn.sum<number>('sessions').as('sessions')).where('tenant_id', '=', tenantId).where('plan_id', '=', ids.frontDesk).executeTakeFirst())?.sessions ?? 0,
      );
    const id = 'CA-end-in-one';
    await one.start(voiceCall(id));
    const before = await rolledUp();

    const results = await Promise.all([one.handleTurn(id, 'hangup-a', { type: 'hangup' }), two.handleTurn(id, 'hangup-b', { type: 'hangup' })]);

    // One ended the call with its report; the other came after it, on an ended session.
    expect(results.filter((result) => result.report !== null)).toHaveLength(1);
    expect(await reportsOf(id)).toEqual([expect.objectContaining({ session_id: id, disposition: 'abandoned' })]);
    expect(ended).toEqual([id]);
    expect(await rolledUp()).toBe(before + 1);
    const stored = await storedEvents(id);
    expect(stored.map((event) => event.revision)).toEqual([1, 2, 3]);
    expect((await one.find(id))?.session.status).toBe('ended');
  });
});

describe('what a start asks before it runs', () => {
  test('the licence is told how many calls run beside the new one, read together with the check for a repeated start', async () => {
    clock.set('2026-11-23T16:30:00.000Z');
    const told: number[] = [];
    const admitting = createSessionRuntime(server.ctx, { scripts, clock, admit: (_session, running) => Promise.resolve(void told.push(running)) });
    const running = async () => Number((await server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('count')).where('status', '=', 'waiting').where('is_test', '=', 0).where('provider', '<>', 'webchat').executeTakeFirst())?.count ?? 0);
    const before = await running();
    const first = await admitting.start(voiceCall('CA-counted-1'));
    expect(first.status).toBe('waiting');
    const sent = await statementsOf(() => admitting.start(voiceCall('CA-counted-2')));
    // The second was counted with the first, still on the line; a repeat of it is answered without asking the licence.
    expect(told).toEqual([before, before + 1]);
    expect((await admitting.start(voiceCall('CA-counted-2'))).duplicate).toBe(true);
    expect(told).toHaveLength(2);
    if (dialect === 'postgres') {
      // One round trip for both questions, before the session is stored (the plan's and the
      // tenant's language are read through the read cache; its protocol number was reserved by the first start).
      const asked = sent.slice(0, sent.findIndex((text) => /^\s*(insert|with)\b/i.test(text))).filter((text) => /"(sessions|session_events)"/.test(text));
      expect(asked, asked.join('\n')).toHaveLength(1);
      expect(asked[0]).toMatch(/"session_events".*count\(\*\)/s);
    }
  });
});


describe('a date range edited between calls', () => {
  test('the next call is placed by the new hours', async () => {
    clock.set('2026-11-23T12:00:00.000Z');
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    const created = await server.call({
      method: 'POST',
      url: '/date-ranges',
      token: member.token,
      payload: { name: 'Edited hours', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) },
    });
    expect(created.statusCode, created.body).toBe(201);
    const rangeId = created.json<{ id: number }>().id;
    const planId = await storePlan(server.ctx, tenantId, readFixture('front-desk'), {
      name: 'Front desk, hours edited',
      references: { destination: { 1: ids.salesDesk, 2: ids.salesChat }, date_range: { 1: rangeId }, plan: { 102: ids.selfService } },
    });
    const hoursExit = async (id: string) => {
      const outcome = await runtime.start(voiceCall(id, planId));
      if (outcome.status !== 'ended') await runtime.handleTurn(id, `${id}:bye`, { type: 'hangup' });
      return outcome.entered.find((entry) => entry.node_id === 'hours')?.exit;
    };

    expect(await hoursExit('CA-hours-before-edit')).toBe('in_hours');
    expect(await hoursExit('CA-hours-before-edit-again')).toBe('in_hours');
    const edited = await server.call({ method: 'PATCH', url: `/date-ranges/${rangeId}`, token: member.token, payload: { intervals: [] } });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(await hoursExit('CA-hours-after-edit')).toBe('out_of_hours');
  });
});

describe('protocols', () => {
  test('are unique per tenant and day, also when asked for at once', async () => {
    const protocols = createProtocolGenerator(createTransactionRunner(server.ctx.db, server.ctx.dialect));
    const day = new Date('2030-01-02T23:59:59.000Z');
    const numbers = await Promise.all(Array.from({ length: 25 }, () => protocols.next(tenantId, day)));
    expect(new Set(numbers).size).toBe(25);
    expect([...numbers].sort()).toEqual(Array.from({ length: 25 }, (_, i) => `20300102-${String(i + 1).padStart(6, '0')}`));
    const other = await createTenantMember(server, admin, 'protocols-other');
    expect(await protocols.next(other.tenantId, day)).toBe('20300102-000001');
    expect(await protocols.next(tenantId, new Date('2030-01-03T00:00:00.000Z'))).toBe('20300103-000001');
  });

  test('two instances draw from reservations of their own, in order within each, never the same number', async () => {
    const day = new Date('2030-02-02T10:00:00.000Z');
    const first = createProtocolGenerator(createTransactionRunner(server.ctx.db, server.ctx.dialect));
    const second = createProtocolGenerator(createTransactionRunner(server.ctx.db, server.ctx.dialect));
    const fromFirst = [await first.next(tenantId, day), await first.next(tenantId, day)];
    const fromSecond = await Promise.all(Array.from({ length: PROTOCOLS_RESERVED + 1 }, () => second.next(tenantId, day)));
    fromFirst.push(await first.next(tenantId, day));
    const number = (protocol: string) => Number(protocol.slice(9));
    expect(fromFirst.map(number)).toEqual([1, 2, 3]);
    // The second instance's numbers follow the first's whole reservation; its seventeenth is of a reservation after its own first.
    expect(fromSecond.map(number).sort((a, b) => a - b)).toEqual(Array.from({ length: PROTOCOLS_RESERVED + 1 }, (_, i) => PROTOCOLS_RESERVED + 1 + i));
    expect(new Set([...fromFirst, ...fromSecond]).size).toBe(fromFirst.length + fromSecond.length);
  });
});
