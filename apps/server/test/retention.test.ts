import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallReportRecord, Configuration, LicenseInfo, StatsSummary } from '@voxplan/contracts';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type LiveSessionEvent, subscribeLiveSessions } from '../src/modules/sessions/live-events.ts';
import { PRUNE_LOCK_KEY, runRetentionPass } from '../src/modules/sessions/retention.ts';
import { createTenantMember, dialect, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { seedReports } from './report-seeding.ts';
import { type FixtureDocument, insertReport, type Instance, planEdge, planNode, startInstance, storePlan } from './sessions-helpers.ts';

/**
 * The retention job (issue 17, docs/sessions.md "Retention"): calls whose end never arrived are
 * closed `expired` through the turn runner, once however many instances sweep; reports, sessions
 * and events past the retention are deleted, the statistics rollups kept.
 */

let server: TestServer;
let admin: string;
let member: TenantMember;
let planId: number;

const DAY = 86_400_000;
const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const later = (ms: number) => new Date(Date.now() + ms);

/** Answers, then waits in a menu for a key that never comes. */
const waitingPlan: FixtureDocument = {
  name: 'Waits',
  nodes: [planNode('start', 'start'), planNode('ask', 'voice_menu', { voice_text: 'Press 1.', options: [{ digits: '1', label: 'One' }] }), planNode('bye', 'hangup')],
  edges: [planEdge('start', 'next', 'ask'), planEdge('ask', '1', 'bye')],
};

const call = (id: string, channel: 'voice' | 'chat' = 'voice') =>
  server.ctx.sessions.start({
    id,
    tenant_id: member.tenantId,
    plan_id: planId,
    channel,
    provider: channel === 'voice' ? 'twilio' : 'webchat',
    caller: '+5511999990000',
    called: '+551130000000',
  });

async function reportOf(sessionId: string): Promise<CallReportRecord | undefined> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId, is_test: { inq: [true, false] } } })}`, token: member.token });
  return response.json<CallReportRecord[]>()[0];
}

async function setSetting(name: string, value: string) {
  const [setting] = (await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name } })}`, token: admin })).json<Configuration[]>();
  return server.call({ method: 'PATCH', url: `/configurations/${setting!.id}`, token: admin, payload: { value } });
}

const expiredFigure = async () => {
  const url = `/stats/summary?from=${encodeURIComponent(ago(DAY))}&to=${encodeURIComponent(later(DAY).toISOString())}`;
  const response = await server.call({ method: 'GET', url, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<StatsSummary>().figures.expired;
};

/**
 * Twilio's Call resource as the REST API serves it (GET /2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json,
 * https://www.twilio.com/docs/voice/api/call?code-sample=code-fetch-a-call): the status this test
 * gives each call, 404 (Twilio's error body) for one it does not know.
 */
const twilioCalls = new Map<string, { status: string; end_time: string | null }>();
const twilioAsked: Array<{ path: string; authorization: string | undefined }> = [];
const twilioApi = http.createServer((request, response) => {
  twilioAsked.push({ path: request.url ?? '', authorization: request.headers.authorization });
  const match = /^\/2010-04-01\/Accounts\/(AC\w+)\/Calls\/([^/]+)\.json$/.exec(request.url ?? '');
  const known = match && twilioCalls.get(decodeURIComponent(match[2]!));
  if (request.method !== 'GET' || !match || !known) {
    response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 20404, message: 'The requested resource was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 }));
    return;
  }
  const [, account, sid] = match;
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ sid, account_sid: account, status: known.status, end_time: known.end_time, direction: 'inbound', api_version: '2010-04-01' }));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => twilioApi.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({ TWILIO_API_URL: `http://127.0.0.1:${(twilioApi.address() as AddressInfo).port}` });
  admin = await server.login();
  member = await createTenantMember(server, admin, 'retention');
  planId = await storePlan(server.ctx, member.tenantId, waitingPlan);
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => twilioApi.close(resolve));
});

describe('the settings', () => {
  test('reports_retention_days takes 1 to 3650, voice_session_end_timeout_minutes 5 to 10080', async () => {
    for (const [name, refused, accepted] of [
      ['reports_retention_days', ['0', '3651', '-1', 'a year'], ['1', '3650', '365']],
      ['voice_session_end_timeout_minutes', ['4', '10081', '0'], ['5', '10080', '240']],
    ] as const) {
      for (const value of refused) {
        const response = await setSetting(name, value);
        expect(response.statusCode, `${name}=${value}`).toBe(400);
        expect(errorOf(response).code).toBe('invalid_setting_value');
      }
      for (const value of accepted) expect((await setSetting(name, value)).statusCode, `${name}=${value}`).toBe(200);
    }
  });
});

describe('calls whose end never arrives', () => {
  test('closed expired, as of their last activity, once the timeout has passed; chats and live calls are left', async () => {
    const heard: LiveSessionEvent[] = [];
    const stop = subscribeLiveSessions(server.ctx.bus, (event) => heard.push(event));
    try {
      await call('CA-stale');
      await call('chat-idle', 'chat');
      const expiredBefore = await expiredFigure();
      const lastActivity = async () =>
        (await server.ctx.db.selectFrom('sessions').select('last_activity_time').where('id', '=', 'CA-stale').executeTakeFirstOrThrow()).last_activity_time;
      const silentSince = await lastActivity();
      // 239 minutes of silence: not yet.
      expect((await runRetentionPass(server.ctx, { now: later(239 * MINUTE) })).expired).toEqual([]);
      const pass = await runRetentionPass(server.ctx, { now: later(241 * MINUTE) });
      expect(pass.expired).toEqual(['CA-stale']);
      const report = await reportOf('CA-stale');
      // Its duration is the call's, not the time the server waited for its end.
      expect(report).toMatchObject({ disposition: 'expired', hangup_cause: 'end_not_received', last_node_id: 'ask', end_time: silentSince });
      expect(report!.duration_s).toBeLessThan(60);
      expect(await reportOf('chat-idle')).toBeUndefined();
      // Counted in the statistics through the one report writer, and told on the live feed.
      expect(await expiredFigure()).toBe(expiredBefore + 1);
      await expect.poll(() => heard.filter((event) => event.session_id === 'CA-stale' && event.type === 'session.ended')).toMatchObject([
        { disposition: 'expired', hangup_cause: 'end_not_received' },
      ]);
      // Nothing more to close.
      expect((await runRetentionPass(server.ctx, { now: later(300 * MINUTE) })).expired).toEqual([]);
    } finally {
      stop();
    }
  });

  test('the timeout is the setting as stored now', async () => {
    await call('CA-short');
    expect((await setSetting('voice_session_end_timeout_minutes', '30')).statusCode).toBe(200);
    try {
      expect((await runRetentionPass(server.ctx, { now: later(31 * MINUTE) })).expired).toEqual(['CA-short']);
    } finally {
      await setSetting('voice_session_end_timeout_minutes', '240');
    }
  });

  describe('two instances sweeping at once', () => {
    let other: Instance;
    beforeAll(async () => {
      other = await startInstance(server.config, new Date().toISOString());
    }, 30_000);
    afterAll(() => other.close());

    test('close each call once: one report, one count, one end', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `CA-race-${i}`);
      for (const id of ids) await call(id);
      const expiredBefore = await expiredFigure();
      const inactiveSince = later(241 * MINUTE).toISOString();
      const [here, there] = await Promise.all([server.ctx.sessions.expireStale(inactiveSince), other.expireStale(inactiveSince)]);
      expect([...here, ...there].sort()).toEqual([...ids].sort());
      const reports = await server.ctx.db.selectFrom('call_reports').select(['session_id', 'disposition']).where('session_id', 'in', ids).execute();
      expect(reports).toHaveLength(ids.length);
      expect(reports.every((row) => row.disposition === 'expired')).toBe(true);
      expect(await expiredFigure()).toBe(expiredBefore + ids.length);
      const expiries = await server.ctx.db.selectFrom('session_events').select('session_id').where('session_id', 'in', ids).where('event_id', '=', 'expire').execute();
      expect(expiries).toHaveLength(ids.length);
    });
  });
});

describe('pruning', () => {
  test('reports, ended sessions and their events past the retention go; recent ones, waiting sessions and the rollups stay', async () => {
    const tenant = member.tenantId;
    // Through the report writer, so that it is in the rollups.
    await insertReport(server.ctx, tenant, { sessionId: 'old-counted', startedAt: ago(400 * DAY) });
    await seedReports(server.ctx.db, server.ctx.dialect, { tenantId: tenant, count: 2500, newest: ago(366 * DAY), prefix: 'old' });
    await seedReports(server.ctx.db, server.ctx.dialect, { tenantId: tenant, count: 30, newest: ago(300 * DAY), prefix: 'recent' });
    // Sessions: one ended a year and more ago, one ended now, one started long ago and still waiting.
    await call('S-old-ended');
    await server.ctx.sessions.handleTurn('S-old-ended', 'hangup', { type: 'hangup' });
    await call('S-new-ended');
    await server.ctx.sessions.handleTurn('S-new-ended', 'hangup', { type: 'hangup' });
    await call('S-old-waiting');
    await server.ctx.db.updateTable('sessions').set({ created_time: ago(400 * DAY) }).where('id', 'in', ['S-old-ended', 'S-old-waiting']).execute();
    const rollups = () =>
      server.ctx.db
        .selectFrom('stats_sessions')
        .select([sql<number>`sum(sessions)`.as('sessions'), sql<number>`count(*)`.as('rows')])
        .where('tenant_id', '=', tenant)
        .executeTakeFirstOrThrow()
        .then((row) => ({ sessions: Number(row.sessions), rows: Number(row.rows) }));
    const rollupsBefore = await rollups();
    expect(rollupsBefore.sessions).toBeGreaterThan(0);
    const eventsOf = (id: string) => server.ctx.db.selectFrom('session_events').select('id').where('session_id', '=', id).execute();
    expect(await eventsOf('S-old-ended')).toHaveLength(2);

    const pass = await runRetentionPass(server.ctx);
    expect(pass.pruned.reports).toBe(2501);
    expect(pass.pruned.sessions).toBe(1);
    expect(pass.pruned.events).toBe(2);

    const reportIds = (await server.ctx.db.selectFrom('call_reports').select('session_id').where('tenant_id', '=', tenant).execute()).map((row) => row.session_id);
    expect(reportIds).not.toContain('old-counted');
    expect(reportIds.filter((id) => id.startsWith('old-'))).toEqual([]);
    expect(reportIds.filter((id) => id.startsWith('recent-'))).toHaveLength(30);
    expect(reportIds).toContain('S-new-ended');
    const sessionIds = (await server.ctx.db.selectFrom('sessions').select('id').execute()).map((row) => row.id);
    expect(sessionIds).not.toContain('S-old-ended');
    expect(sessionIds).toEqual(expect.arrayContaining(['S-new-ended', 'S-old-waiting']));
    expect(await eventsOf('S-old-ended')).toEqual([]);
    expect(await rollups()).toEqual(rollupsBefore);

    // The retention is the setting as stored now: 30 days takes the recent ones too.
    expect((await setSetting('reports_retention_days', '30')).statusCode).toBe(200);
    try {
      expect((await runRetentionPass(server.ctx)).pruned.reports).toBe(30);
    } finally {
      await setSetting('reports_retention_days', '365');
    }
  });

  test('closed conversations past conversations_retention_days go with their messages and files; recent, waiting and open ones stay', async () => {
    const tenant = member.tenantId;
    const conversation = async (name: string, status: 'waiting' | 'open' | 'closed', closedAgo: number | null, createdAgo: number) => {
      const row = await server.ctx.db
        .insertInto('conversations')
        .values({ tenant_id: tenant, session_id: `conv-${name}`, status, channel: 'chat', provider: 'webchat', caller: '+5511999990000', protocol: name, created_at: ago(createdAgo), closed_at: closedAgo === null ? null : ago(closedAgo), handoff_revision: 1, ...(status === 'closed' && { outcome: 'resolved' as const }) })
        .returning('id')
        .executeTakeFirstOrThrow();
      await server.ctx.db.insertInto('conversation_messages').values({ conversation_id: row.id, author: 'customer', text: `hello from ${name}`, created_at: ago(createdAgo) }).execute();
      await server.ctx.db
        .insertInto('conversation_attachments')
        .values({ tenant_id: tenant, conversation_id: row.id, name: `${name}.txt`, content_type: 'text/plain', size: 2, data: Buffer.from('hi'), created_at: ago(createdAgo) })
        .execute();
      return row.id;
    };
    const old = await conversation('old-closed', 'closed', 400 * DAY, 401 * DAY);
    const recent = await conversation('recent-closed', 'closed', 10 * DAY, 400 * DAY);
    const oldWaiting = await conversation('old-waiting', 'waiting', null, 500 * DAY);
    const oldOpen = await conversation('old-open', 'open', null, 500 * DAY);
    const ids = [old, recent, oldWaiting, oldOpen];
    const left = async () => ({
      conversations: (await server.ctx.db.selectFrom('conversations').select('id').where('id', 'in', ids).orderBy('id').execute()).map((row) => row.id),
      messages: (await server.ctx.db.selectFrom('conversation_messages').select('conversation_id').where('conversation_id', 'in', ids).orderBy('conversation_id').execute()).map((row) => row.conversation_id),
      files: (await server.ctx.db.selectFrom('conversation_attachments').select('conversation_id').where('conversation_id', 'in', ids).orderBy('conversation_id').execute()).map((row) => row.conversation_id),
    });

    expect((await runRetentionPass(server.ctx)).pruned.conversations).toBe(1);
    const kept = [recent, oldWaiting, oldOpen];
    expect(await left()).toEqual({ conversations: kept, messages: kept, files: kept });
    // The setting as stored now: 7 days takes the recent closed one too, never the waiting or open ones.
    expect((await setSetting('conversations_retention_days', '7')).statusCode).toBe(200);
    try {
      expect((await runRetentionPass(server.ctx)).pruned.conversations).toBe(1);
      expect(await left()).toEqual({ conversations: [oldWaiting, oldOpen], messages: [oldWaiting, oldOpen], files: [oldWaiting, oldOpen] });
    } finally {
      await setSetting('conversations_retention_days', '365');
    }
    expect((await setSetting('conversations_retention_days', '0')).statusCode).toBe(400);
  });

  test.runIf(dialect === 'postgres')('while another instance prunes (it holds the lock), a pass leaves the old rows to it', async () => {
    const tenant = member.tenantId;
    await seedReports(server.ctx.db, server.ctx.dialect, { tenantId: tenant, count: 40, newest: ago(500 * DAY), prefix: 'locked' });
    const other = new pg.Client({ connectionString: server.config.databaseUrl });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock($1)', [PRUNE_LOCK_KEY]);
      expect((await runRetentionPass(server.ctx)).pruned.reports).toBe(0);
      await other.query('select pg_advisory_unlock($1)', [PRUNE_LOCK_KEY]);
      expect((await runRetentionPass(server.ctx)).pruned.reports).toBe(40);
    } finally {
      await other.end();
    }
  });
});

describe('a Twilio call whose status callback was lost', () => {
  const ACCOUNT = 'AC00000000000000000000000000000017';
  const TOKEN = 'retention-twilio-token';

  test('Twilio says it has ended: closed expired as of its end there within minutes, and its licence slot freed; a transfer in progress stays', async () => {
    const twilioMember = await createTenantMember(server, admin, 'retention-twilio');
    const integrations = await server.call({ method: 'PATCH', url: `/tenants/${twilioMember.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } });
    expect(integrations.statusCode, integrations.body).toBe(200);
    const plan = await storePlan(server.ctx, twilioMember.tenantId, waitingPlan);
    const start = (id: string) =>
      server.ctx.sessions.start({ id, tenant_id: twilioMember.tenantId, plan_id: plan, channel: 'voice', provider: 'twilio', caller: '+5511999990000', called: '+551130000017' });
    await start('CA-lost-end');
    await start('CA-long-transfer');
    await start('CA-twilio-forgot');
    const endedAt = new Date(Date.now() + 40_000);
    twilioCalls.set('CA-lost-end', { status: 'completed', end_time: endedAt.toUTCString() });
    twilioCalls.set('CA-long-transfer', { status: 'in-progress', end_time: null });
    const running = async () => (await server.call({ method: 'GET', url: '/license', token: admin })).json<LicenseInfo>().usage.concurrent_sessions;
    const runningBefore = await running();

    // Four minutes of silence: a call may still be at a menu; Twilio is not asked.
    expect((await runRetentionPass(server.ctx, { now: later(4 * MINUTE) })).lost).toEqual([]);
    expect(twilioAsked).toEqual([]);
    const pass = await runRetentionPass(server.ctx, { now: later(6 * MINUTE) });
    expect(pass.lost).toEqual(['CA-lost-end']);
    expect(pass.expired).toEqual([]);
    // Asked with the tenant's account, by the library's client.
    expect(twilioAsked.map((asked) => asked.path).sort()).toEqual(
      ['CA-lost-end', 'CA-long-transfer', 'CA-twilio-forgot'].map((sid) => `/2010-04-01/Accounts/${ACCOUNT}/Calls/${sid}.json`).sort(),
    );
    expect(twilioAsked[0]!.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`);
    const report = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: 'CA-lost-end' } })}`, token: twilioMember.token });
    expect(report.json<CallReportRecord[]>()[0]).toMatchObject({ disposition: 'expired', hangup_cause: 'end_not_received', end_time: new Date(Math.floor(endedAt.getTime() / 1000) * 1000).toISOString() });
    expect(await running()).toBe(runningBefore - 1);
    // The late status callback would find it ended; the others still wait.
    for (const id of ['CA-long-transfer', 'CA-twilio-forgot']) expect((await server.ctx.sessions.find(id))?.session.status).toBe('waiting');
    for (const id of ['CA-long-transfer', 'CA-twilio-forgot']) await server.ctx.sessions.handleTurn(id, 'hangup', { type: 'hangup' });
  });
});
