import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTransactionRunner } from '../src/db/write-batch.ts';
import { badRequest } from '../src/errors.ts';
import { startChatSweeper } from '../src/modules/sessions/chat-sweeper.ts';
import { type EnqueuePlanEvent, planWebhookEvents } from '../src/modules/sessions/plan-webhook-events.ts';
import { createProtocolGenerator } from '../src/modules/sessions/protocols.ts';
import { createSessionRuntime, type SessionRuntime, type StartRequest } from '../src/modules/sessions/sessions.service.ts';
import { uploadCall } from './audio-fixtures.ts';
import { createTenantMember, dialect, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, type Instance, readFixture, recordingEvents, startInstance, storePlan, testClock } from './sessions-helpers.ts';
import { statementsOf } from './pg-statements.ts';

/**
 * Sessions kept in the database (issue 5): calls and chats through the fixture plans, chat
 * timeouts by the sweeper, reports, atomic turns, two instances on one database, and the blocks
 * that call out running through the real Lua runner and outbound client.
 */

const CALLER = '+5511999990000';
const CALLED = '+551130000000';
const SOURCE_IP = '198.51.100.7';

let server: TestServer;
let admin: string;
let member: TenantMember;
let tenantId: number;
let scripts: LuaScriptRunner;
const clock = testClock('2026-11-23T12:00:00.000Z');
const events = recordingEvents();
let runtime: SessionRuntime;

/** Plans and records of the tenant. */
const ids = { salesDesk: 0, salesChat: 0, allDay: 0, neverOpen: 0, selfService: 0, frontDesk: 0, frontDeskClosed: 0, race: 0, drafted: 0 };

/** A local server standing in for the CRM the fixtures call, for Twilio's API, and for a slow service. */
interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let remote: http.Server;
let remoteUrl: string;
const received: Received[] = [];
let holdSlow: { promise: Promise<void>; release(): void } | null = null;

function hold() {
  let release = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  holdSlow = { promise, release };
  return holdSlow;
}

async function answer(request: http.IncomingMessage, response: http.ServerResponse) {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
  const send = (status: number, data: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(data));
  };
  const url = new URL(request.url ?? '/', 'http://local');
  if (url.pathname === '/api/customers') return send(200, { customer: { name: 'Ana', extension: '204' } });
  if (url.pathname === '/api/tier') return send(200, { customer: { tier: 'gold' } });
  if (url.pathname.startsWith('/twilio/')) return send(201, { sid: 'SM0001', status: 'queued' });
  if (url.pathname === '/slow') {
    const held = holdSlow;
    holdSlow = null;
    if (held) await held.promise;
    return send(200, { ok: true });
  }
  send(404, {});
}

const requestsTo = (pathname: string) => received.filter((request) => new URL(request.url, 'http://local').pathname.startsWith(pathname));

async function setLoopback(isOpen: boolean) {
  await server.ctx.db.updateTable('configurations').set({ value: String(isOpen) }).where('name', '=', 'outbound_allow_loopback').execute();
}

const voiceCall = (id: string, planId = ids.frontDesk): StartRequest => ({
  id,
  tenant_id: tenantId,
  plan_id: planId,
  channel: 'voice',
  provider: 'twilio',
  caller: CALLER,
  called: CALLED,
  source_ip: SOURCE_IP,
});
const chat = (id: string, planId = ids.frontDesk): StartRequest => ({ id, tenant_id: tenantId, plan_id: planId, channel: 'chat', provider: 'webchat', caller: 'visitor-1', called: 'site' });

async function reportsOf(sessionId: string): Promise<CallReportRecord[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId, is_test: { inq: [true, false] } } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>();
}

async function storedEvents(sessionId: string) {
  return server.ctx.db.selectFrom('session_events').selectAll().where('session_id', '=', sessionId).orderBy('revision').execute();
}

const pathOf = (report: CallReportRecord | null) => report?.nodes.map((node) => (node.exit === null ? node.node_id : `${node.node_id}:${node.exit}`));
const callerLines = async (sessionId: string) => (await runtime.find(sessionId))!.session.transcript.filter((line) => line.from === 'caller').map((line) => line.text);

beforeAll(async () => {
  // The chats here are web chats whose plans wait 15 minutes: longer than a web chat's own idle cap (5), which has its test in webchat-licence.test.ts.
  server = await startTestServer({ WEBCHAT_IDLE_TIMEOUT: '60' });
  admin = await server.login();
  member = await createTenantMember(server, admin, 'sessions');
  tenantId = member.tenantId;

  remote = http.createServer((request, response) => void answer(request, response));
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  await setLoopback(true);

  const create = async (url: string, payload: Record<string, unknown>) => {
    const response = await server.call({ method: 'POST', url, token: member.token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: number }>().id;
  };
  ids.salesDesk = await create('/destinations', { name: 'Sales desk', kind: 'voice', uri: 'sip:sales@pbx.acme.example' });
  ids.salesChat = await create('/destinations', { name: 'Sales chat', kind: 'chat', uri: 'https://crm.example/handoff' });
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  ids.allDay = await create('/date-ranges', { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) });
  ids.neverOpen = await create('/date-ranges', { name: 'Never', time_zone: 'UTC', intervals: [] });

  // The fixtures call https://crm.example; here the local server answers for it.
  const selfService = JSON.parse(JSON.stringify(readFixture('self-service')).replaceAll('https://crm.example', remoteUrl)) as FixtureDocument;
  ids.selfService = await storePlan(server.ctx, tenantId, selfService);
  const references = (dateRange: number) => ({
    destination: { 1: ids.salesDesk, 2: ids.salesChat },
    date_range: { 1: dateRange },
    plan: { 102: ids.selfService },
  });
  ids.frontDesk = await storePlan(server.ctx, tenantId, readFixture('front-desk'), { references: references(ids.allDay) });
  ids.frontDeskClosed = await storePlan(server.ctx, tenantId, readFixture('front-desk'), { name: 'Front desk, closed', references: references(ids.neverOpen) });

  scripts = new LuaScriptRunner({ workers: 1 });
  runtime = createSessionRuntime(server.ctx, { scripts, clock, events, messaging: { twilioApiUrl: `${remoteUrl}/twilio` } });
});

afterAll(async () => {
  await scripts?.close();
  remote?.closeAllConnections();
  await new Promise((resolve) => remote?.close(resolve));
  await server?.close();
});

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
      // One round trip for both questions, before the protocol number is drawn (the plan's and the
      // tenant's language are read through the read cache).
      const asked = sent.slice(0, sent.findIndex((text) => text.includes('protocol_counters'))).filter((text) => /"(sessions|session_events)"/.test(text));
      expect(asked, asked.join('\n')).toHaveLength(1);
      expect(asked[0]).toMatch(/"session_events".*count\(\*\)/s);
    }
  });
});

describe('blocks that call out, through the real Lua runner and outbound client', () => {
  test('HTTP requests, an API switch and a Lua script run a voice call to its end', async () => {
    clock.set('2026-11-23T16:00:00.000Z');
    const before = received.length;
    const outcome = await runtime.start(voiceCall('CA-self-service', ids.selfService));
    expect(outcome.status).toBe('ended');
    expect(pathOf(outcome.report)).toEqual(['start:next', 'lookup:success', 'known:true', 'greet:next', 'hello:next', 'tier:vip', 'score:priority', 'dial_ext:next', 'bye']);
    expect(outcome.actions).toEqual([
      { type: 'say', text: 'Hello Ana, checking your account.', language: 'en-US' },
      { type: 'send_dtmf', digits: '204#' },
      { type: 'hangup', cause: 'normal_clearing' },
    ]);
    // `lane` came back from the Lua script.
    expect(outcome.report?.variables).toMatchObject({ name: 'Ana', extension: '204', lane: 'fast' });
    const [lookup, tier] = received.slice(before);
    expect(lookup).toMatchObject({ method: 'GET', url: `/api/customers?phone=${encodeURIComponent(CALLER)}` });
    expect(lookup?.headers['x-protocol']).toBe(outcome.report?.protocol);
    expect(tier).toMatchObject({ method: 'POST', url: '/api/tier' });
    expect(JSON.parse(tier!.body)).toEqual({ phone: CALLER, name: 'Ana' });
  });

  test('with loopback closed by the general settings, the request is refused and the block takes error', async () => {
    await setLoopback(false);
    try {
      const before = received.length;
      const outcome = await runtime.start(voiceCall('CA-self-service-closed', ids.selfService));
      // The lookup failed, so the plan goes on to its assistant.
      expect(outcome.entered.map((entry) => `${entry.node_id}:${entry.exit}`)).toEqual(['start:next', 'lookup:error', 'bot:null']);
      expect(received.length).toBe(before);
    } finally {
      await setLoopback(true);
    }
  });
});

describe('send_message goes through the tenant\'s integrations', () => {
  test('without a Twilio integration nothing is sent and the block takes failed', async () => {
    const before = requestsTo('/twilio').length;
    const outcome = await runtime.start(voiceCall('CA-sms-unconfigured', ids.frontDeskClosed));
    expect(pathOf(outcome.report)).toEqual(['start:next', 'hours:out_of_hours', 'closed:next', 'notify:failed', 'bye']);
    expect(outcome.actions).toContainEqual(expect.objectContaining({ type: 'send_message', channel: 'sms', to: CALLER, status: 'failed' }));
    expect(requestsTo('/twilio').length).toBe(before);
  });

  test('with the tenant\'s Twilio keys the SMS goes to Twilio\'s Messages API, from the called number', async () => {
    const saved = await server.call({
      method: 'PATCH',
      url: `/tenants/${tenantId}/integrations`,
      token: admin,
      payload: { twilio_sid: 'AC0123', twilio_token: 'twilio-secret' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    try {
      const outcome = await runtime.start(voiceCall('CA-sms-sent', ids.frontDeskClosed));
      expect(pathOf(outcome.report)).toEqual(['start:next', 'hours:out_of_hours', 'closed:next', 'notify:sent', 'bye']);
      const [sent] = requestsTo('/twilio').slice(-1);
      expect(sent).toMatchObject({ method: 'POST', url: '/twilio/2010-04-01/Accounts/AC0123/Messages.json' });
      expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from('AC0123:twilio-secret').toString('base64')}`);
      expect(Object.fromEntries(new URLSearchParams(sent!.body))).toEqual({
        To: CALLER,
        From: CALLED,
        Body: `ACME opens Monday to Friday, 8 to 18. Protocol ${outcome.report?.protocol}.`,
      });
    } finally {
      await server.call({ method: 'PATCH', url: `/tenants/${tenantId}/integrations`, token: admin, payload: {} });
    }
  });
});

describe('test sessions on a draft (the simulator)', () => {
  beforeAll(async () => {
    const published: FixtureDocument = {
      format_version: 1,
      settings: { session_timeout_min: 5, chat_text: 'Closed.' },
      nodes: [
        { id: 'start', type: 'start', data: {} },
        { id: 'hello', type: 'play_message', data: { voice_text: 'Published hello.' } },
      ],
      edges: [{ id: 'e1', source: 'start', source_exit: 'next', target: 'hello' }],
    };
    const draft = structuredClone(published);
    draft.nodes[1]!.data = { voice_text: 'Draft hello.' };
    ids.drafted = await storePlan(server.ctx, tenantId, published, { name: 'Drafted', draft });
  });

  test('a draft session runs the draft, and its report is a test report', async () => {
    const outcome = await runtime.start({ ...chat('sim-1', ids.drafted), provider: 'simulator', draft: true });
    expect(outcome.actions[0]).toEqual({ type: 'reply', text: 'Draft hello.' });
    expect(await runtime.find('sim-1')).toMatchObject({ is_draft: true, is_test: true, session: { plan_version: 2 } });
    expect(outcome.report).toMatchObject({ is_test: true, plan_version: 2, provider: 'simulator' });
    const listed = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: 'sim-1' } })}`, token: member.token });
    expect(listed.json()).toEqual([]);
    const asked = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: 'sim-1', is_test: true } })}`, token: member.token });
    expect(asked.json()).toEqual([outcome.report]);
  });

  test('a published session runs the published version', async () => {
    const outcome = await runtime.start(chat('published-1', ids.drafted));
    expect(outcome.actions[0]).toEqual({ type: 'reply', text: 'Published hello.' });
    expect(outcome.report).toMatchObject({ is_test: false, plan_version: 1 });
  });
});

describe('the plan webhook\'s hooks', () => {
  type Queued = Parameters<EnqueuePlanEvent>[1];

  test('a plan with a webhook queues session.started and session.ended with the turns that did them', async () => {
    const queued: Queued[] = [];
    const hooked = createSessionRuntime(server.ctx, { scripts, clock, events: planWebhookEvents(async (_trx, event) => void queued.push(event)) });
    clock.set('2026-11-23T16:30:00.000Z');
    const outcome = await hooked.start(voiceCall('CA-webhook', ids.selfService));
    expect(queued.map((event) => event.event)).toEqual(['session.started', 'session.ended']);
    const data = {
      session_id: 'CA-webhook',
      channel: 'voice',
      provider: 'twilio',
      direction: 'inbound',
      caller: CALLER,
      called: CALLED,
      protocol: outcome.report?.protocol,
      started_at: '2026-11-23T16:30:00.000Z',
      plan_version: 1,
    };
    expect(queued[0]).toEqual({ tenantId, planId: ids.selfService, url: 'https://hooks.example/voxplan', event: 'session.started', payload: data });
    expect(queued[1]).toMatchObject({ event: 'session.ended', payload: { ...data, report: { session_id: 'CA-webhook', disposition: 'retained', last_node: { node_id: 'bye' } } } });

    // A plan without a webhook, and a test session, queue nothing.
    await hooked.start(voiceCall('CA-no-webhook'));
    await hooked.start({ ...voiceCall('CA-webhook-test', ids.selfService), is_test: true });
    expect(queued).toHaveLength(2);
  });

  test("the server's own runtime plays the tenant's stored audio and queues the plan's webhook events", async () => {
    const upload = await server.call({ ...uploadCall({ name: 'Welcome tone' }), token: member.token });
    expect(upload.statusCode, upload.body).toBe(201);
    const audioId = upload.json<{ id: number }>().id;
    const greeting: FixtureDocument = {
      format_version: 1,
      settings: { webhook: 'https://hooks.example/server-runtime' },
      nodes: [
        { id: 'start', type: 'start', data: {} },
        { id: 'hello', type: 'play_message', data: { text_to_speech: false, audio_id: audioId, voice_text: 'Welcome.' } },
        { id: 'bye', type: 'hangup', data: {} },
      ],
      edges: [
        { id: 'e1', source: 'start', source_exit: 'next', target: 'hello' },
        { id: 'e2', source: 'hello', source_exit: 'next', target: 'bye' },
      ],
    };
    const planId = await storePlan(server.ctx, tenantId, greeting, { name: 'Server runtime greeting' });
    const outcome = await server.ctx.sessions.start({ ...voiceCall('CA-server-runtime', planId) });
    // A URL the provider fetches without a token: signed, with an expiry (twilio.test.ts fetches it).
    expect(outcome.actions).toContainEqual(
      expect.objectContaining({ type: 'play', url: expect.stringMatching(new RegExp(`^${server.config.publicUrl}/api/v1/media/audios/${audioId}\\?exp=\\d+&sig=[\\w-]+$`)) }),
    );
    const queued = await server.ctx.db.selectFrom('webhook_deliveries').select(['event', 'url']).where('plan_id', '=', planId).orderBy('id').execute();
    expect(queued).toEqual([
      { event: 'session.started', url: 'https://hooks.example/server-runtime' },
      { event: 'session.ended', url: 'https://hooks.example/server-runtime' },
    ]);
  });

  test('an event the queue refuses is logged, and the call still ends with its report', async () => {
    const logged: string[] = [];
    const refusing = planWebhookEvents(
      () => Promise.reject(badRequest('invalid_input', [{ path: 'payload', message: 'at most 262144 bytes of JSON' }])),
      (message) => logged.push(message),
    );
    const hooked = createSessionRuntime(server.ctx, { scripts, clock, events: refusing });
    const outcome = await hooked.start(voiceCall('CA-webhook-refused', ids.selfService));
    expect(outcome.report).toMatchObject({ disposition: 'retained' });
    expect(logged).toHaveLength(2);
    expect(logged[1]).toContain('session.ended');
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
});

describe('two server instances on one database', () => {
  let other: Instance;
  const sync = async (iso: string) => {
    clock.set(iso);
    await other.setClock(iso);
  };

  beforeAll(async () => {
    // The race test's plan: a chat menu whose option 1 waits on a slow service.
    const race: FixtureDocument = {
      format_version: 1,
      settings: { session_timeout_min: 5, chat_text: 'Bye for now.' },
      nodes: [
        { id: 'start', type: 'start', data: {} },
        { id: 'ask', type: 'voice_menu', data: { voice_text: 'Pick one.', options: [{ digits: '1', label: 'Slow' }, { digits: '2', label: 'Quick' }] } },
        { id: 'slow', type: 'http_request', data: { method: 'GET', url: `${remoteUrl}/slow`, timeout_ms: 20_000 } },
        { id: 'quick', type: 'play_message', data: { voice_text: 'Quick.' } },
      ],
      edges: [
        { id: 'e1', source: 'start', source_exit: 'next', target: 'ask' },
        { id: 'e2', source: 'ask', source_exit: '1', target: 'slow' },
        { id: 'e3', source: 'ask', source_exit: '2', target: 'quick' },
        { id: 'e4', source: 'slow', source_exit: 'success', target: 'ask' },
        { id: 'e5', source: 'slow', source_exit: 'error', target: 'ask' },
        { id: 'e6', source: 'quick', source_exit: 'next', target: 'ask' },
      ],
    };
    ids.race = await storePlan(server.ctx, tenantId, race, { name: 'Race' });
    other = await startInstance(server.config, '2026-11-23T17:00:00.000Z');
  });
  afterAll(async () => {
    await other?.close();
  });

  test('they take alternate turns of one session', async () => {
    await sync('2026-11-23T17:00:00.000Z');
    const id = 'chat-alternating';
    await runtime.start(chat(id));
    expect(await other.handleTurn(id, 't2', { type: 'message', text: 'hello?' })).toMatchObject({ revision: 2, status: 'waiting' });
    expect(await runtime.handleTurn(id, 't3', { type: 'message', text: 'sales' })).toMatchObject({
      revision: 3,
      actions: [{ type: 'dial', destination_id: ids.salesChat, uri: 'https://crm.example/handoff' }],
    });
    const ended = await other.handleTurn(id, 't4', { type: 'dial_result', status: 'answer' });
    expect(ended).toMatchObject({ revision: 4, status: 'ended', report: { disposition: 'routed', dial_status: 'answer' } });
    expect(pathOf(ended.report)).toEqual(['start:next', 'hours:in_hours', 'welcome:next', 'rec:next', 'menu:1', 'route:chat', 'sales_chat:answer']);
    expect(await callerLines(id)).toEqual(['hello?', 'sales']);
    expect(await reportsOf(id)).toEqual([ended.report]);
  });

  test('events of one session on both instances at once are both applied', async () => {
    await sync('2026-11-23T17:10:00.000Z');
    for (const n of [1, 2, 3]) {
      const id = `chat-both-at-once-${n}`;
      await runtime.start(chat(id));
      const outcomes = await Promise.all([
        runtime.handleTurn(id, 'here', { type: 'message', text: 'from here' }),
        other.handleTurn(id, 'there', { type: 'message', text: 'from there' }),
      ]);
      expect(outcomes.map((outcome) => outcome.revision).sort()).toEqual([2, 3]);
      expect((await callerLines(id)).sort()).toEqual(['from here', 'from there']);
      expect(await runtime.find(id)).toMatchObject({ revision: 3, session: { turns: 3 } });
    }
  });

  test('a turn that lost its race runs again on what the winner stored; its request goes out again', async () => {
    await sync('2026-11-23T17:20:00.000Z');
    const id = 'chat-lost-race';
    await runtime.start(chat(id, ids.race));
    const gate = hold();
    const before = requestsTo('/slow').length;
    const told: string[] = [];
    const observer = {
      entered: (entry: { node_id: string }) => told.push(`enter ${entry.node_id}`),
      exited: (entry: { node_id: string; exit: string | null }) => told.push(`exit ${entry.node_id} ${entry.exit}`),
      action: (action: { type: string }) => told.push(action.type),
      discarded: () => told.push('discarded'),
    };
    const slow = runtime.handleTurn(id, 'slow', { type: 'message', text: '1' }, { observer });
    await expect.poll(() => requestsTo('/slow').length).toBe(before + 1);
    // While this instance waits on the slow service, the other one stores a turn.
    expect(await other.handleTurn(id, 'quick', { type: 'message', text: '2' })).toMatchObject({ revision: 2 });
    gate.release();
    const outcome = await slow;
    expect(outcome).toMatchObject({ revision: 3, duplicate: false, resumed: { node_id: 'ask', exit: '1' } });
    expect(outcome.entered.map((entry) => entry.node_id)).toEqual(['slow', 'ask']);
    expect(requestsTo('/slow').length).toBe(before + 2);
    // Whoever watched the turn is told to forget the first run, then told the run that was stored.
    const run = ['exit ask 1', 'enter slow', 'exit slow success', 'enter ask', 'reply'];
    expect(told).toEqual([...run, 'discarded', ...run]);
    const { session } = (await runtime.find(id))!;
    expect(session.path.map((entry) => `${entry.node_id}:${entry.exit}`)).toEqual(['start:next', 'ask:2', 'quick:next', 'ask:1', 'slow:success', 'ask:null']);
    expect(await callerLines(id)).toEqual(['2', '1']);
  });

  test("a turn's writes are all or nothing: an event stored meanwhile (a racing instance) keeps the session's row from being written too", async () => {
    await sync('2026-11-23T17:25:00.000Z');
    const id = 'chat-event-stored-meanwhile';
    await runtime.start(chat(id, ids.race));
    const gate = hold();
    const before = requestsTo('/slow').length;
    const turn = runtime.handleTurn(id, 'slow-once', { type: 'message', text: '1' });
    await expect.poll(() => requestsTo('/slow').length).toBe(before + 1);
    // The same event's outcome stored while the session's row is still at the revision the turn read:
    // the turn's write of the row would pass its revision check, and must not be kept without its event.
    const stored = { revision: 2, status: 'waiting', actions: [], resumed: null, entered: [], ignored: true };
    await server.ctx.db
      .insertInto('session_events')
      .values({ session_id: id, event_id: 'slow-once', revision: 2, outcome: JSON.stringify(stored), created_time: '2026-11-23T17:25:00.000Z' })
      .execute();
    gate.release();
    expect(await turn).toEqual({ ...stored, session_id: id, duplicate: true, report: null });
    expect(await runtime.find(id)).toMatchObject({ revision: 1 });
    expect(await callerLines(id)).toEqual([]);
    expect((await storedEvents(id)).map((event) => event.event_id)).toEqual(['start', 'slow-once']);
  });

  test('sessions started on both at once get distinct protocols', async () => {
    await sync('2026-11-23T17:30:00.000Z');
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? runtime.start(chat(`chat-protocol-${i}`)) : other.start(chat(`chat-protocol-${i}`)))),
    );
    const protocols = await Promise.all(outcomes.map(async (outcome) => (await runtime.find(outcome.session_id))!.session.protocol));
    expect(new Set(protocols).size).toBe(6);
  });

  test('two sweepers never end the same session twice', async () => {
    await sync('2026-11-23T18:00:00.000Z');
    const sessionIds = Array.from({ length: 8 }, (_, i) => `chat-swept-${i}`);
    for (const id of sessionIds) await runtime.start(chat(id));
    await sync('2026-11-23T18:30:00.000Z');
    const [here, there] = await Promise.all([runtime.sweepTimeouts(), other.sweepTimeouts()]);
    expect([...here, ...there].filter((id) => id.startsWith('chat-swept-')).sort()).toEqual(sessionIds);
    expect(here.filter((id) => there.includes(id))).toEqual([]);
    for (const id of sessionIds) {
      expect(await reportsOf(id)).toHaveLength(1);
      expect((await storedEvents(id)).filter((event) => event.event_id.startsWith('timeout:'))).toHaveLength(1);
    }
    expect(await Promise.all([runtime.sweepTimeouts(), other.sweepTimeouts()])).toEqual([[], []]);
  });
});
