/**
 * Several server instances on one database (docs/deployment.md): two real server processes, each
 * with its own read cache, and what one writes seen at once by the other; a Twilio call whose
 * callbacks alternate between them; live session events heard across instances. On PostgreSQL the
 * instances hear each other's commits over LISTEN/NOTIFY (db/instance-bus.ts); on SQLite two
 * processes on one file see each other through `PRAGMA data_version`. The bus on its own:
 * instance-bus-postgres.test.ts.
 */
import type { CallReportRecord, StatsLive } from '@voxplan/contracts';
import { simulatorSignInEndedCode } from '@voxplan/contracts/simulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.ts';
import { type LiveSessionEvent, subscribeLiveSessions } from '../src/modules/sessions/live-events.ts';
import { ADMIN, dialect, startTestServer, type TestServer } from './harness.ts';
import { type Cleanups, createTenantMemberOver, request, type ServerProcess, startServerProcess } from './server-process.ts';
import { type FixtureDocument, type Instance, planEdge, planNode, sayingPlan, startInstance, storePlan } from './sessions-helpers.ts';
import { connectSimulator } from './simulator-client.ts';
import { signedTwilioCallback, twilioActionOf } from './twilio-callbacks.ts';
import { openFeed, summary } from './live-feed.ts';

const MASTER_KEY = '42'.repeat(32);
/** What both instances are reached at through the proxy, and what Twilio signs its requests for. */
const PUBLIC_URL = 'https://voice.example.com';
const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Collects the live events a bus hears, for one session. */
function listen(handle: Pick<DatabaseHandle, 'bus'>) {
  const heard: LiveSessionEvent[] = [];
  cleanups.push(subscribeLiveSessions(handle.bus, (event) => heard.push(event)));
  return {
    of: (sessionId: string) => heard.filter((event) => event.session_id === sessionId).map((event) => (event.type === 'node.entered' ? `${event.revision} ${event.node_id}` : `${event.revision} ${event.type}`)),
  };
}

/**
 * Resolves once an instance publishes live events, that is once it has heard that someone
 * listens on another instance: it learns so from a notification, a moment after the
 * subscription (instance-bus.ts), and until then a session's events go nowhere, by design.
 * Sessions started by `startSession` (given their number, answering their ids), until `heardOf` one of them.
 */
async function untilPublishing(startSession: (attempt: number) => Promise<string>, heardOf: (sessionId: string) => boolean) {
  const started: string[] = [];
  await expect
    .poll(
      async () => {
        started.push(await startSession(started.length + 1));
        return started.some(heardOf);
      },
      { timeout: 20_000, interval: 100 },
    )
    .toBe(true);
}

describe('two server processes on one database', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let admin: string;
  let member: { tenantId: number; token: string };

  beforeAll(async () => {
    a = await startServerProcess(cleanups, { MASTER_KEY, PUBLIC_URL });
    // The same database (on SQLite, in the same data directory), master key and public address.
    b = await startServerProcess(cleanups, { MASTER_KEY, PUBLIC_URL, DATA_DIR: a.env.DATA_DIR, ...(a.env.DATABASE_URL && { DATABASE_URL: a.env.DATABASE_URL }) });
    ({ token: admin } = await a.call<{ token: string }>('POST', '/login', ADMIN));
    member = await createTenantMemberOver(a.call, admin, 'instances');
  }, 60_000);

  test("a write on one is seen at once by the other's cached reads", async () => {
    const tenant = { 'x-tenant-id': String(member.tenantId) };
    const created = await a.call<{ id: number }>('POST', '/destinations', { name: 'desk', kind: 'voice', uri: 'sip:desk@pbx.example.com' }, admin, tenant);
    const where = encodeURIComponent(JSON.stringify({ description: { like: 'round %' } }));
    const readOnB = async () => {
      // The third read of a key is answered from the cache (it is kept from the second).
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const [record, count] = await Promise.all([
          b.call<{ description: string }>('GET', `/destinations/${created.id}`, undefined, admin, tenant),
          b.call<{ count: number }>('GET', `/destinations/count?where=${where}`, undefined, admin, tenant),
        ]);
        answers.push(`${record.description} (${count.count})`);
      }
      return answers;
    };
    for (let round = 1; round <= 10; round++) {
      await a.call('PATCH', `/destinations/${created.id}`, { description: `round ${round}` }, admin, tenant);
      expect(await readOnB()).toEqual(Array(3).fill(`round ${round} (1)`));
    }
  });

  test('a sign-in ended on one is refused at once by the other', async () => {
    const { token } = await a.call<{ token: string }>('POST', '/login', ADMIN);
    for (let i = 0; i < 3; i++) expect((await request(b.agent, b.port, 'GET', '/api/v1/whoami', undefined, token)).status).toBe(200);
    expect((await request(a.agent, a.port, 'POST', '/api/v1/logout', undefined, token)).status).toBe(204);
    const refused = await request(b.agent, b.port, 'GET', '/api/v1/whoami', undefined, token);
    expect(refused.status).toBe(401);
  });

  test('a plan published on one is the one the next call on the other runs', async () => {
    const plan = await a.call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Versions' }, member.token);
    let version = plan.version;
    const publishOnA = async (words: string) => {
      ({ version } = await a.call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: version, ...sayingPlan(words) }, member.token));
      await a.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: version }, member.token);
    };
    const saidOnB = async () => {
      const client = await connectSimulator(`http://127.0.0.1:${b.port}`, plan.id, member.token);
      const frames = await client.turn({ type: 'start', channel: 'voice', version: 'published' });
      await client.close();
      return frames.flatMap((frame) => (frame.type === 'action' && frame.action.type === 'say' ? [frame.action.text] : []))[0];
    };
    await publishOnA('This is version one.');
    for (let i = 0; i < 3; i++) expect(await saidOnB()).toBe('This is version one.');
    await publishOnA('This is version two.');
    expect(await saidOnB()).toBe('This is version two.');
  });

  test('a destination edited on one is the address the next call on the other dials', async () => {
    const tenant = { 'x-tenant-id': String(member.tenantId) };
    const desk = await a.call<{ id: number }>('POST', '/destinations', { name: 'Front desk', kind: 'voice', uri: 'sip:desk@old-pbx.example.com' }, admin, tenant);
    const plan = await a.call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Dials the desk' }, member.token);
    const document = {
      nodes: [planNode('start', 'start'), planNode('desk', 'destination', { destination_id: desk.id })],
      edges: [planEdge('start', 'next', 'desk')],
    };
    const saved = await a.call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...document }, member.token);
    await a.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version }, member.token);
    const dialledOnB = async () => {
      const client = await connectSimulator(`http://127.0.0.1:${b.port}`, plan.id, member.token);
      const frames = await client.turn({ type: 'start', channel: 'voice', version: 'published' });
      await client.close();
      return frames.flatMap((frame) => (frame.type === 'action' && frame.action.type === 'dial' ? [frame.action.uri] : []));
    };
    // B's cache keeps the destination from its second call on.
    for (let i = 0; i < 3; i++) expect(await dialledOnB()).toEqual(['sip:desk@old-pbx.example.com']);
    await a.call('PATCH', `/destinations/${desk.id}`, { uri: 'sip:desk@new-pbx.example.com' }, admin, tenant);
    expect(await dialledOnB()).toEqual(['sip:desk@new-pbx.example.com']);
  });

  test("a destination edited on one between a call's turns is the address its next turn on the other dials", async () => {
    const tenant = { 'x-tenant-id': String(member.tenantId) };
    const desk = await a.call<{ id: number }>('POST', '/destinations', { name: 'Back desk', kind: 'voice', uri: 'sip:desk@pbx-0.example.com' }, admin, tenant);
    const plan = await a.call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Dials after a key' }, member.token);
    const document = {
      nodes: [planNode('start', 'start'), planNode('ask', 'voice_menu', { voice_text: 'Press 1.', options: [{ digits: '1', label: 'Desk' }] }), planNode('desk', 'destination', { destination_id: desk.id })],
      edges: [planEdge('start', 'next', 'ask'), planEdge('ask', '1', 'desk')],
    };
    const saved = await a.call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...document }, member.token);
    await a.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version }, member.token);
    // The call starts on B, the desk moves on A, and the key pressed then is a turn on B (B keeps the destination from its second turn on).
    const dialledOnB = async (moveTo: number) => {
      const client = await connectSimulator(`http://127.0.0.1:${b.port}`, plan.id, member.token);
      await client.turn({ type: 'start', channel: 'voice', version: 'published' });
      await a.call('PATCH', `/destinations/${desk.id}`, { uri: `sip:desk@pbx-${moveTo}.example.com` }, admin, tenant);
      const frames = await client.turn({ type: 'digits', id: 'press-1', digits: '1' });
      await client.close();
      return frames.flatMap((frame) => (frame.type === 'action' && frame.action.type === 'dial' ? [frame.action.uri] : []));
    };
    for (let round = 1; round <= 8; round++) expect(await dialledOnB(round)).toEqual([`sip:desk@pbx-${round}.example.com`]);
  });

  /** The tenant's Twilio account, and a number on it that runs a published plan saying `words`, all made on A. */
  async function twilioNumberSaying(account: string, authToken: string, number: string, words: string) {
    await a.call('PATCH', `/tenants/${member.tenantId}/integrations`, { twilio_sid: account, twilio_token: authToken }, admin);
    const plan = await a.call<{ id: number; version: number }>('POST', '/visual-plans', { name: `Phone ${number}` }, member.token);
    const saved = await a.call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...sayingPlan(words) }, member.token);
    await a.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version }, member.token);
    await a.call('POST', '/numbers', { number, provider: 'twilio', voice_plan_id: plan.id }, member.token);
  }

  test("a Twilio call whose callbacks alternate between the two", async () => {
    const [account, authToken, number] = ['AC00000000000000000000000000000042', 'instances-auth-token', '+551140004242'];
    await twilioNumberSaying(account, authToken, number, 'Hello caller.');

    /** A callback as Twilio sends it to `path` (after /hooks/twilio/), signed for PUBLIC_URL, to one instance. */
    const hook = async (instance: ServerProcess, path: string, form: Record<string, string>) => {
      const { url, headers, body } = signedTwilioCallback(authToken, PUBLIC_URL, path, form);
      return request(instance.agent, instance.port, 'POST', url, body, undefined, headers);
    };
    const call = { AccountSid: account, CallSid: 'CA-instances', From: '+14155550100', To: number, Direction: 'inbound', CallStatus: 'in-progress' };
    const gatherAction = (twiml: string) => twilioActionOf(twiml, 'Gather', PUBLIC_URL);

    const answered = await hook(a, 'voice', { ...call, CallStatus: 'ringing' });
    expect(answered.body).toContain('<Say language="en-US" voice="Polly.Joanna">Hello caller.</Say>');
    // A key the menu does not have, on the other instance: it asks again.
    const again = await hook(b, gatherAction(answered.body), { ...call, Digits: '9' });
    expect(again.status, again.body).toBe(200);
    expect(again.body).toContain('<Gather');
    const leave = gatherAction(again.body);
    const ended = await hook(a, leave, { ...call, Digits: '1' });
    expect(ended.body).toContain('<Hangup/>');
    // Twilio retries the same callback on the other instance: answered again, nothing runs twice.
    expect((await hook(b, leave, { ...call, Digits: '1' })).body).toBe(ended.body);
    expect((await hook(b, 'status', { ...call, CallStatus: 'completed', CallDuration: '12' })).status).toBe(204);
    const filter = encodeURIComponent(JSON.stringify({ where: { session_id: 'CA-instances' } }));
    const [report] = await b.call<CallReportRecord[]>('GET', `/reports?filter=${filter}`, undefined, member.token);
    expect(report!.nodes.map((node) => `${node.node_id}:${node.exit}`)).toEqual(['start:next', 'hello:next', 'ask:1', 'bye:null']);
    expect(report).toMatchObject({ hangup_cause: 'normal_clearing', is_test: false });
  });

  /** Starts a simulated session of a plan that says hello, on `instance`: answers its id. */
  async function simulatedSessionsOn(instance: ServerProcess) {
    const plan = await instance.call<{ id: number; version: number }>('POST', '/visual-plans', { name: `Warm-up ${instance.port}` }, member.token);
    await instance.call('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...sayingPlan('Warming up.') }, member.token);
    return async () => {
      const client = await connectSimulator(`http://127.0.0.1:${instance.port}`, plan.id, member.token);
      const frames = await client.turn({ type: 'start', channel: 'voice' });
      await client.close();
      return frames.find((frame) => frame.type === 'started')!.session_id as string;
    };
  }

  test.runIf(dialect === 'postgres')("a simulated call's live events on one reach a subscriber on another instance", async () => {
    const elsewhere = openDatabase({ databaseUrl: a.env.DATABASE_URL, dataDir: a.env.DATA_DIR! });
    cleanups.push(() => elsewhere.close());
    await elsewhere.ready;
    const heard = listen(elsewhere);
    await untilPublishing(await simulatedSessionsOn(a), (sessionId) => heard.of(sessionId).length > 0);
    const plan = await a.call<{ id: number; version: number }>('POST', '/visual-plans', { name: 'Live' }, member.token);
    await a.call('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...sayingPlan('Hello.') }, member.token);
    const client = await connectSimulator(`http://127.0.0.1:${a.port}`, plan.id, member.token);
    const started = await client.turn({ type: 'start', channel: 'voice' });
    const sessionId = started.find((frame) => frame.type === 'started')!.session_id as string;
    await client.turn({ type: 'digits', id: 'press-1', digits: '1' });
    await client.close();
    await expect.poll(() => heard.of(sessionId)).toEqual(['1 session.started', '1 start', '1 hello', '1 ask', '2 bye', '2 session.ended']);
  });

  test.runIf(dialect === 'postgres')("a phone call on one moves the dashboard's live feed read on the other: started, its blocks, ended", async () => {
    const [account, authToken, number] = ['AC00000000000000000000000000000043', 'instances-live-token', '+551140004343'];
    await twilioNumberSaying(account, authToken, number, 'Hello.');
    const feed = await openFeed(`http://127.0.0.1:${a.port}/api/v1/stats/live/events`, member.token);
    try {
      const hookOnB = (path: string, form: Record<string, string>) => {
        const { url, headers, body } = signedTwilioCallback(authToken, PUBLIC_URL, path, form);
        return request(b.agent, b.port, 'POST', url, body, undefined, headers);
      };
      const call = { AccountSid: account, CallSid: 'CA-live-instances', From: '+14155550100', To: number, Direction: 'inbound', CallStatus: 'ringing' };
      // The dashboard leaves out simulated sessions: B is warmed up with calls of its own.
      const warmUpCall = async (attempt: number) => {
        const CallSid = `CA-warm-up-${attempt}`;
        await hookOnB('voice', { ...call, CallSid });
        return CallSid;
      };
      await untilPublishing(warmUpCall, (sessionId) => summary(feed.events, sessionId).length > 0);
      const answered = await hookOnB('voice', call);
      await expect.poll(() => summary(feed.events, 'CA-live-instances')).toEqual(['started null', 'start start', 'hello play_message', 'ask voice_menu']);
      // The snapshot on A has it too, in the menu.
      const live = await a.call<StatsLive>('GET', '/stats/live', undefined, member.token);
      expect(live.active).toContainEqual(expect.objectContaining({ session_id: 'CA-live-instances', node_id: 'ask', block_type: 'voice_menu' }));
      await hookOnB(twilioActionOf(answered.body, 'Gather', PUBLIC_URL), { ...call, CallStatus: 'in-progress', Digits: '1' });
      await expect.poll(() => summary(feed.events, 'CA-live-instances').slice(4)).toEqual(['bye hangup', 'ended voice retained normal_clearing']);
    } finally {
      feed.close();
    }
  });

  test('a sign-in ended on one ends the live feed and the simulator socket it opened on the other, at once; another sign-in keeps its feed', async () => {
    const { token } = await a.call<{ token: string }>('POST', '/login', { username: 'instances-user', password: 'instances-password-1' });
    const plan = await a.call<{ id: number }>('POST', '/visual-plans', { name: 'Simulated' }, token);
    const feed = await openFeed(`http://127.0.0.1:${b.port}/api/v1/stats/live/events`, token);
    const kept = await openFeed(`http://127.0.0.1:${b.port}/api/v1/stats/live/events`, member.token);
    const socket = await connectSimulator(`http://127.0.0.1:${b.port}`, plan.id, token);
    try {
      const signedOut = await request(a.agent, a.port, 'POST', '/api/v1/logout', undefined, token);
      expect(signedOut.status).toBe(204);
      await feed.ended;
      expect(feed.comments).toContain('closed sign_in_ended');
      expect(await socket.closed).toBe(simulatorSignInEndedCode);
      expect(kept.comments).not.toContain('closed sign_in_ended');
      // Refused anew on B too.
      expect((await request(b.agent, b.port, 'GET', '/api/v1/stats/live', undefined, token)).status).toBe(401);
    } finally {
      kept.close();
      feed.close();
    }
  });
});

describe.runIf(dialect === 'postgres')('a call whose turns alternate between two instances', () => {
  let server: TestServer;
  const instances: Instance[] = [];
  beforeAll(async () => {
    server = await startTestServer({ MASTER_KEY });
    cleanups.push(() => server.close());
    for (let i = 0; i < 2; i++) {
      const instance = await startInstance(server.config, new Date().toISOString());
      cleanups.push(() => instance.close());
      instances.push(instance);
    }
  }, 60_000);

  test('each turn runs on the other instance; the live events of both reach a third, in order', async () => {
    const [one, two] = instances as [Instance, Instance];
    const tenant = await server.ctx.db.insertInto('tenants').values({ name: 'alternating', created_time: new Date().toISOString(), integrations: null }).returning('id').executeTakeFirstOrThrow();
    const document: FixtureDocument = { format_version: 1, settings: {}, ...sayingPlan('Hello.') };
    const planId = await storePlan(server.ctx, tenant.id, document, { name: 'Alternating' });
    const heard = listen(server.ctx);
    const id = 'CA-alternating';
    const init = { id, tenant_id: tenant.id, plan_id: planId, channel: 'voice', provider: 'twilio', caller: '+5511999990000', called: '+5511333330000' } as const;
    const warmUpOnOne = async (attempt: number) => {
      const warmUpId = `CA-warm-up-${attempt}`;
      await one.start({ ...init, id: warmUpId });
      return warmUpId;
    };
    await untilPublishing(warmUpOnOne, (sessionId) => heard.of(sessionId).length > 0);
    expect(await one.start(init)).toMatchObject({ revision: 1, status: 'waiting' });
    // A digit the menu does not have: it asks again, in the block it is in (no block entered).
    expect(await two.handleTurn(id, 'gather:1', { type: 'digits', digits: '9' })).toMatchObject({ revision: 2, status: 'waiting', entered: [] });
    expect(await one.handleTurn(id, 'gather:2', { type: 'digits', digits: '1' })).toMatchObject({ revision: 3, status: 'ended' });
    // The provider repeats a callback to the other instance: the stored answer, nothing runs again.
    expect(await two.handleTurn(id, 'gather:2', { type: 'digits', digits: '1' })).toMatchObject({ revision: 3, duplicate: true });
    await expect.poll(() => heard.of(id)).toEqual(['1 session.started', '1 start', '1 hello', '1 ask', '3 bye', '3 session.ended']);
  });
});

describe('live session events in one process', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    cleanups.push(() => server.close());
  });

  test('a subscriber hears the sessions of its own tenant only, from start to end', async () => {
    const tenants = await server.ctx.db
      .insertInto('tenants')
      .values(['mine', 'theirs'].map((name) => ({ name, created_time: new Date().toISOString(), integrations: null })))
      .returning('id')
      .execute();
    const [mine, theirs] = tenants.map((tenant) => tenant.id) as [number, number];
    const document: FixtureDocument = { format_version: 1, settings: {}, ...sayingPlan('Hello.') };
    const heard: LiveSessionEvent[] = [];
    cleanups.push(subscribeLiveSessions(server.ctx.bus, (event) => heard.push(event), { tenantId: mine }));
    for (const tenantId of [theirs, mine]) {
      const planId = await storePlan(server.ctx, tenantId, document, { name: 'Live' });
      const init = { id: `chat-${tenantId}`, tenant_id: tenantId, plan_id: planId, channel: 'chat', provider: 'webchat', caller: 'visitor', called: 'site' } as const;
      await server.ctx.sessions.start(init);
      await server.ctx.sessions.handleTurn(init.id, 'm1', { type: 'message', text: '1' });
    }
    await expect.poll(() => heard.map((event) => `${event.session_id} ${event.type}`).at(-1)).toBe(`chat-${mine} session.ended`);
    expect(heard.map((event) => event.type)).toEqual(['session.started', 'node.entered', 'node.entered', 'node.entered', 'node.entered', 'session.ended']);
    expect(heard[0]).toMatchObject({ session_id: `chat-${mine}`, tenant_id: mine, channel: 'chat', caller: 'visitor', is_test: false, revision: 1 });
    expect(heard.at(-1)).toMatchObject({ revision: 2, disposition: expect.any(String), hangup_cause: expect.any(String) });
  });
});
