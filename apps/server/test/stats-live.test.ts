import type { AddressInfo } from 'node:net';
import { LIVE_SESSIONS_LIMIT, type StatsLive, statsLiveSchema, statsSystemSchema } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { liveFeedTiming } from '../src/modules/stats/stats-live.routes.ts';
import { createTenantMember, createTenantUser, dialect, errorOf, shortLivedToken, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { openFeed, summary } from './live-feed.ts';
import { type FixtureDocument, planEdge, planNode, storePlan } from './sessions-helpers.ts';

/**
 * The dashboard's live view (issue 17): GET /stats/live, the Server-Sent Events of
 * /stats/live/events, and GET /stats/system.
 */

let server: TestServer;
let baseUrl: string;
let admin: string;
let a: TenantMember;
let b: TenantMember;
const plans: Record<number, number> = {};

const waitingPlan: FixtureDocument = {
  name: 'Live',
  nodes: [planNode('start', 'start'), planNode('ask', 'voice_menu', { voice_text: 'Press 1.', options: [{ digits: '1', label: 'One' }] }), planNode('bye', 'hangup')],
  edges: [planEdge('start', 'next', 'ask'), planEdge('ask', '1', 'bye')],
};

const callIn = (tenant: TenantMember, id: string, options: { isTest?: boolean } = {}) =>
  server.ctx.sessions.start({
    id,
    tenant_id: tenant.tenantId,
    plan_id: plans[tenant.tenantId]!,
    channel: 'voice',
    provider: 'twilio',
    caller: '+5511999990000',
    called: '+551130000000',
    ...(options.isTest && { is_test: true }),
  });


beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}/api/v1`;
  admin = await server.login();
  a = await createTenantMember(server, admin, 'live-a');
  b = await createTenantMember(server, admin, 'live-b', 'guest');
  plans[a.tenantId] = await storePlan(server.ctx, a.tenantId, waitingPlan);
  plans[b.tenantId] = await storePlan(server.ctx, b.tenantId, waitingPlan);
});
afterAll(() => server.close());

describe('GET /stats/live', () => {
  test("the tenant's running calls with the block each waits in, without test sessions or ended ones; new sessions a second", async () => {
    await callIn(a, 'CA-live-1');
    await callIn(a, 'CA-live-2');
    await server.ctx.sessions.handleTurn('CA-live-2', 'hangup', { type: 'hangup' });
    await callIn(a, 'CA-live-test', { isTest: true });
    await callIn(b, 'CA-live-b');
    const response = await server.call({ method: 'GET', url: '/stats/live', token: a.token });
    expect(response.statusCode).toBe(200);
    const live = statsLiveSchema.parse(response.json());
    expect(live.active).toEqual([
      expect.objectContaining({ session_id: 'CA-live-1', tenant_id: a.tenantId, plan_id: plans[a.tenantId], channel: 'voice', provider: 'twilio', node_id: 'ask', block_type: 'voice_menu' }),
    ]);
    // Two real sessions of the tenant started within the 10 s window (the ended one counts).
    expect(live).toMatchObject({ active_total: 1, active_calls: 1, window_s: 10, new_per_second: 0.2 });

    const ofB = (await server.call({ method: 'GET', url: '/stats/live', token: b.token })).json<StatsLive>();
    expect(ofB.active.map((session) => session.session_id)).toEqual(['CA-live-b']);
    const ofAll = (await server.call({ method: 'GET', url: '/stats/live', token: admin })).json<StatsLive>();
    expect(ofAll.active.map((session) => session.session_id)).toEqual(['CA-live-1', 'CA-live-b']);
    expect(ofAll.new_per_second).toBe(0.3);
    const ofOne = (await server.call({ method: 'GET', url: '/stats/live', token: admin, tenant: b.tenantId })).json<StatsLive>();
    expect(ofOne.active.map((session) => session.session_id)).toEqual(['CA-live-b']);
  });

  test(`a tenant with more than ${LIVE_SESSIONS_LIMIT} running sessions gets the most recently started ${LIVE_SESSIONS_LIMIT}, and how many run in all`, async () => {
    const busy = await createTenantMember(server, admin, 'live-busy');
    const planId = await storePlan(server.ctx, busy.tenantId, waitingPlan);
    const start = (id: string, channel: 'voice' | 'chat') =>
      server.ctx.sessions.start({ id, tenant_id: busy.tenantId, plan_id: planId, channel, provider: channel === 'voice' ? 'twilio' : 'webchat', caller: '+5511999990000', called: '+551130000000' });
    // The two chats start first: the oldest, left out of the list but counted.
    await start('busy-chat-1', 'chat');
    await start('busy-chat-2', 'chat');
    const calls = Array.from({ length: LIVE_SESSIONS_LIMIT + 3 }, (_, index) => `busy-call-${String(index + 1).padStart(3, '0')}`);
    for (const id of calls) await start(id, 'voice');
    await server.ctx.sessions.handleTurn(calls.at(-1)!, 'hangup', { type: 'hangup' });

    const response = await server.call({ method: 'GET', url: '/stats/live', token: busy.token });
    expect(response.statusCode).toBe(200);
    const live = statsLiveSchema.parse(response.json());
    const running = calls.slice(0, -1);
    expect(live.active.map((session) => session.session_id)).toEqual(running.slice(-LIVE_SESSIONS_LIMIT));
    expect(live).toMatchObject({ active_total: running.length + 2, active_calls: running.length });
  });
});

describe('GET /stats/live/events', () => {
  test("a call's start, blocks and end, as they happen, of the caller's tenant only and never of test sessions", async () => {
    const ofA = await openFeed(`${baseUrl}/stats/live/events`, a.token);
    const ofAll = await openFeed(`${baseUrl}/stats/live/events`, admin);
    try {
      await callIn(a, 'CA-feed-1');
      await callIn(a, 'CA-feed-test', { isTest: true });
      await callIn(b, 'CA-feed-b');
      await server.ctx.sessions.handleTurn('CA-feed-1', 'press-1', { type: 'digits', digits: '1' });
      await server.ctx.sessions.handleTurn('CA-feed-test', 'hangup', { type: 'hangup' });
      await expect.poll(() => summary(ofA.events, 'CA-feed-1')).toEqual(['started null', 'start start', 'ask voice_menu', 'bye hangup', 'ended voice retained normal_clearing']);
      expect(ofA.comments).toContain('connected');
      await expect.poll(() => summary(ofAll.events, 'CA-feed-b')).toEqual(['started null', 'start start', 'ask voice_menu']);
      expect(summary(ofA.events, 'CA-feed-b')).toEqual([]);
      expect(summary(ofA.events, 'CA-feed-test')).toEqual([]);
      expect(summary(ofAll.events, 'CA-feed-test')).toEqual([]);
      const started = ofA.events.find((event) => event.type === 'session.started' && event.session.session_id === 'CA-feed-1');
      expect(started).toMatchObject({ session: { tenant_id: a.tenantId, caller: '+5511999990000', called: '+551130000000', direction: 'inbound' } });
    } finally {
      ofA.close();
      ofAll.close();
    }
  });

  test('a client that goes away is let go: the others keep theirs', async () => {
    const leaving = await openFeed(`${baseUrl}/stats/live/events`, a.token);
    const staying = await openFeed(`${baseUrl}/stats/live/events`, a.token);
    leaving.close();
    await leaving.ended;
    await callIn(a, 'CA-after-leave');
    await expect.poll(() => summary(staying.events, 'CA-after-leave')).toContain('started null');
    expect(leaving.events).toEqual([]);
    staying.close();
  });

  test('an idle stream gets a ping comment every so often (15 s; shortened here)', async () => {
    liveFeedTiming.pingMs = 50;
    const feed = await openFeed(`${baseUrl}/stats/live/events`, a.token);
    try {
      await expect.poll(() => feed.comments.filter((comment) => comment === 'ping').length).toBeGreaterThanOrEqual(2);
      expect(feed.events).toEqual([]);
    } finally {
      liveFeedTiming.pingMs = 15_000;
      feed.close();
    }
  });

  test('a stream ends at once when its sign-in ends: sign-out, a password changed, a role taken away, the user removed; others stay open', async () => {
    const staying = await openFeed(`${baseUrl}/stats/live/events`, a.token);
    const ways: [string, (member: TenantMember) => Promise<unknown>][] = [
      ['signed out', (member) => server.call({ method: 'POST', url: '/logout', token: member.token })],
      [
        'password changed in another sign-in',
        async (member) => {
          const other = await server.login(member.username, member.password);
          const payload = { current_password: member.password, password: 'another-password-2', confirmation: 'another-password-2' };
          return server.call({ method: 'POST', url: '/me/password', token: other, payload });
        },
      ],
      ['role taken away', (member) => server.call({ method: 'PATCH', url: `/users/${member.userId}`, token: admin, payload: { roles: [{ role: 'guest', tenant_id: member.tenantId }] } })],
      ['removed', (member) => server.call({ method: 'DELETE', url: `/users/${member.userId}`, token: admin })],
    ];
    try {
      for (const [index, [way, act]] of ways.entries()) {
        const member = await createTenantUser(server, admin, a.tenantId, `live-leaver-${index}`, 'user');
        const feed = await openFeed(`${baseUrl}/stats/live/events`, member.token);
        const answer = (await act(member)) as { statusCode: number; body: string };
        expect(answer.statusCode, `${way}: ${answer.body}`).toBeLessThan(300);
        await feed.ended;
        expect(feed.comments, way).toContain('closed sign_in_ended');
        // What happened to the tenant afterwards reaches the open stream only.
        await callIn(a, `CA-after-${index}`);
        await expect.poll(() => summary(staying.events, `CA-after-${index}`)).toContain('started null');
        expect(summary(feed.events, `CA-after-${index}`), way).toEqual([]);
      }
      expect(staying.comments).not.toContain('closed sign_in_ended');
    } finally {
      staying.close();
    }
  });

  test('a stream ends when its access token expires; a fresh token opens it again', async () => {
    const feed = await openFeed(`${baseUrl}/stats/live/events`, shortLivedToken(server.ctx, a.token, 2));
    await feed.ended;
    expect(feed.comments).toEqual(['connected', 'closed token_expired']);
    const again = await openFeed(`${baseUrl}/stats/live/events`, a.token);
    await callIn(a, 'CA-after-expiry');
    await expect.poll(() => summary(again.events, 'CA-after-expiry')).toContain('started null');
    again.close();
  });

  test('signed out: 401 in the error shape, no stream', async () => {
    const response = await server.call({ method: 'GET', url: '/stats/live/events' });
    expect(response.statusCode).toBe(401);
    expect(errorOf(response).code).toBe('auth_header_not_found');
  });

  test('closing the server ends the open streams instead of waiting for them', async () => {
    const other = await startTestServer();
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(other.app.server.address() as AddressInfo).port}/api/v1/stats/live/events`;
    const feeds = await Promise.all([openFeed(url, await other.login()), openFeed(url, await other.login())]);
    // A stream never ends by itself: a close that waited for them would hang until the test's timeout.
    await other.close();
    await Promise.all(feeds.map((feed) => feed.ended));
  });
});

describe('GET /stats/system', () => {
  test('the server, the database with its latency and size, the disk, the memory and the calls’ prompts', async () => {
    const response = await server.call({ method: 'GET', url: '/stats/system', token: b.token });
    expect(response.statusCode).toBe(200);
    const system = statsSystemSchema.parse(response.json());
    expect(system.server).toMatchObject({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(system.database).toMatchObject({ status: 'ok', dialect });
    // Measured, not made up: a real round trip takes some time; how much depends on the machine (no bound here).
    expect(system.database.latency_ms).toBeGreaterThanOrEqual(0);
    expect(system.database.size_bytes).toBeGreaterThan(0);
    expect(system.memory.total_bytes).toBeGreaterThan(system.memory.free_bytes);
    expect(system.memory.process_rss_bytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(system.disk.total_bytes).toBeGreaterThan(0);
    // No call here had a prompt the PBX could not play (asterisk-real.test.ts has one that does).
    expect(system.prompts).toEqual({ window_s: 3600, unplayable_calls: 0, last: null });
    // Nor was any refused by the licence (license.test.ts has some that are).
    expect(system.refusals).toEqual({ window_s: 3600, refused_sessions: 0, last_at: null });
  });
});
