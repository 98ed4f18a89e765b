import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { badRequest } from '../src/errors.ts';
import { type EnqueuePlanEvent, planWebhookEvents } from '../src/modules/sessions/plan-webhook-events.ts';
import { createSessionRuntime } from '../src/modules/sessions/sessions.service.ts';
import { uploadCall } from './audio-fixtures.ts';
import { q } from './harness.ts';
import { admin, CALLED, CALLER, callerLines, chat, clock, hold, ids, member, pathOf, received, remoteUrl, reportsOf, requestsTo, runtime, scripts, server, setLoopback, storedEvents, tenantId, useSessionsServer, voiceCall } from './sessions-fixture.ts';
import { type FixtureDocument, type Instance, startInstance, storePlan } from './sessions-helpers.ts';

/**
 * Sessions kept in the database (issue 5), continued from sessions.test.ts: the blocks that call out
 * running through the real Lua runner and outbound client, SMS through the tenant's integrations,
 * draft sessions, the plan webhook's hooks, and two server instances on one database.
 */

useSessionsServer();

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
