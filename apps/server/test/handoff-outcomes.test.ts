/**
 * The hand-off outcomes as reports, statistics and the dashboard count them (docs/handoff.md,
 * "Outcomes"): after a known sequence of web chats reaching a queue (taken and resolved, taken
 * and sent back, nobody online, nobody in time, the customer left while waiting) the reports'
 * disposition, dial status and end reason, the period figures and the hand-off figures per queue
 * and per agent are exactly those.
 */
import type { Agent, CallReportRecord, Destination, PhoneNumber, StatsHandOffs, StatsSummary, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { webchatVisitor } from './webchat-visitor.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';

const SITE = 'https://shop.example.com';

let server: TestServer;
let member: TenantMember;
let queue: Destination;
let number: PhoneNumber;
const { widget } = webchatVisitor(() => server, () => number.webchat_key, SITE);
const sessions = { resolved: '', back: '', timedOut: '', left: '', nobody: '' };
const periodStart = new Date(Date.now() - 3_600_000).toISOString();

const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => server.call({ method, url, token: member.token, ...(payload && { payload }) });
const setPresence = async (status: 'online' | 'offline') => expect((await api('PUT', '/agents/me', { status })).statusCode).toBe(200);

async function startChat(): Promise<string> {
  const started = await widget('POST', '/conversations');
  expect(started.statusCode, started.body).toBe(200);
  return started.json<WebchatConversation>().conversation_id;
}

const conversationOf = (sessionId: string) =>
  until(`the conversation of ${sessionId}`, () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).orderBy('id', 'desc').executeTakeFirst());
const ended = (sessionId: string) =>
  until(`session ${sessionId} to end`, async () => {
    const row = await server.ctx.db.selectFrom('call_reports').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
    return row ?? undefined;
  });
const period = () => new URLSearchParams({ from: periodStart, to: new Date(Date.now() + 3_600_000).toISOString() }).toString();

beforeAll(async () => {
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'outcomes');
  const created = await api('POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] });
  expect(created.statusCode, created.body).toBe(201);
  queue = created.json<Destination>();
  const plan = await storePlan(server.ctx, member.tenantId, { name: 'Shop chat', ...handOffPlan(queue.id, { timeoutS: 120, onAnswer: 'Welcome back to the bot.' }) });
  const response = await api('POST', '/numbers', { number: '+551140003101', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(response.statusCode, response.body).toBe(201);
  number = response.json<PhoneNumber>();

  // 1. Taken and resolved.
  await setPresence('online');
  sessions.resolved = await startChat();
  const resolved = await conversationOf(sessions.resolved);
  expect((await api('POST', `/conversations/${resolved.id}/take`)).statusCode).toBe(200);
  expect((await api('POST', `/conversations/${resolved.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
  // 2. Taken and sent back to the plan.
  sessions.back = await startChat();
  const back = await conversationOf(sessions.back);
  expect((await api('POST', `/conversations/${back.id}/take`)).statusCode).toBe(200);
  expect((await api('POST', `/conversations/${back.id}/close`, { outcome: 'back_to_plan' })).statusCode).toBe(200);
  // 3. Nobody took it in time: its deadline moved back rather than waited for.
  sessions.timedOut = await startChat();
  const timedOut = await conversationOf(sessions.timedOut);
  await server.ctx.db.updateTable('conversations').set({ deadline_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', timedOut.id).execute();
  await server.ctx.sessions.sweepTimeouts();
  // 4. The customer left while waiting (the channel's end of the chat).
  sessions.left = await startChat();
  await conversationOf(sessions.left);
  await server.ctx.sessions.handleTurn(sessions.left, 'customer-left', { type: 'hangup' });
  await until('the left conversation to close', async () => ((await conversationOf(sessions.left)).status === 'closed' ? true : undefined));
  // 5. Nobody online.
  await setPresence('offline');
  sessions.nobody = await startChat();
  for (const id of Object.values(sessions)) await ended(id);
});

afterAll(() => server?.close());

describe('a known sequence of hand-offs', () => {
  test('each report says how its hand-off ended: disposition, dial status, end reason', async () => {
    const reports = (await api('GET', `/reports?${q('filter', { where: { plan_name: 'Shop chat' }, limit: 100 })}`)).json<CallReportRecord[]>();
    const of = (key: keyof typeof sessions) => reports.find((report) => report.session_id === sessions[key]);
    const summary = (key: keyof typeof sessions) => {
      const report = of(key);
      return report && { disposition: report.disposition, dial_status: report.dial_status, hangup_cause: report.hangup_cause, outcome: report.handoffs?.map((handOff) => handOff.outcome) };
    };
    expect(summary('resolved')).toEqual({ disposition: 'routed', dial_status: 'answer', hangup_cause: 'resolved', outcome: ['resolved'] });
    expect(summary('back')).toEqual({ disposition: 'routed', dial_status: 'answer', hangup_cause: 'normal_clearing', outcome: ['back_to_plan'] });
    expect(summary('timedOut')).toEqual({ disposition: 'missed', dial_status: 'no_answer', hangup_cause: 'normal_clearing', outcome: ['no_answer'] });
    expect(summary('left')).toEqual({ disposition: 'abandoned', dial_status: 'cancel', hangup_cause: 'caller_hangup', outcome: ['abandoned'] });
    expect(summary('nobody')).toEqual({ disposition: 'missed', dial_status: 'busy', hangup_cause: 'normal_clearing', outcome: ['busy'] });
  });

  test('reports filter by agent and by queue, and the export names both (the last hand-off of each chat)', async () => {
    const sessionsWhere = (where: object) =>
      api('GET', `/reports?${q('filter', { where: { and: [{ plan_name: 'Shop chat' }, where] }, limit: 100 })}`).then((response) => {
        expect(response.statusCode, response.body).toBe(200);
        return response.json<CallReportRecord[]>().map((report) => report.session_id).sort();
      });
    expect(await sessionsWhere({ agent_id: member.userId })).toEqual([sessions.resolved, sessions.back].sort());
    expect(await sessionsWhere({ agent_id: { inq: [member.userId + 1000] } })).toEqual([]);
    expect(await sessionsWhere({ queue_id: queue.id })).toEqual(Object.values(sessions).sort());
    expect(await sessionsWhere({ queue_id: queue.id + 1000 })).toEqual([]);
    // Not taken: no agent (null), on the one queue.
    expect(await sessionsWhere({ agent_id: null, queue_id: queue.id })).toEqual([sessions.timedOut, sessions.left, sessions.nobody].sort());
    expect((await api('GET', `/reports/count?${q('where', { agent_id: member.userId })}`)).json()).toEqual({ count: 2 });
    // A list is not ordered by them: a filter, not a column of the table.
    const ordered = await api('GET', `/reports?${q('filter', { order: ['agent_id ASC'] })}`);
    expect(ordered.statusCode).toBe(400);
    expect(ordered.json<{ error: { code: string } }>().error.code).toBe('invalid_filter');

    const agentName = (await api('GET', '/agents')).json<Agent[]>().find((agent) => agent.id === member.userId)!.name;
    const csv = await api('GET', `/reports/export.csv?${q('filter', { where: { agent_id: member.userId } })}`);
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, ...rows] = csv.body.trim().split('\r\n').map((line) => line.split(','));
    const cell = (row: string[], name: string) => row[header!.indexOf(name)];
    expect(rows).toHaveLength(2);
    for (const row of rows) expect([cell(row, 'agent'), cell(row, 'queue')]).toEqual([agentName, 'Support']);
  });

  test('the period figures count 2 routed, 2 missed, 1 abandoned, none retained', async () => {
    const response = await api('GET', `/stats/summary?${period()}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<StatsSummary>().figures).toMatchObject({ sessions: 5, chats: 5, routed: 2, missed: 2, abandoned: 1, retained: 0, failed: 0, retention_rate: 0 });
  });

  test('the hand-off figures per queue and per agent, by name', async () => {
    const response = await api('GET', `/stats/handoffs?${period()}`);
    expect(response.statusCode, response.body).toBe(200);
    const stats = response.json<StatsHandOffs>();
    const counts = { handoffs: 5, taken: 2, resolved: 1, back_to_plan: 1, missed: 2, abandoned: 1, waiting_now: 0, open_now: 0 };
    expect(stats.totals).toMatchObject(counts);
    expect(stats.queues).toEqual([{ id: queue.id, name: 'Support', figures: expect.objectContaining(counts) }]);
    const agentName = (await api('GET', '/agents')).json<Agent[]>().find((agent) => agent.id === member.userId)!.name;
    expect(stats.agents).toEqual([{ id: member.userId, name: agentName, figures: expect.objectContaining({ handoffs: 2, taken: 2, resolved: 1, back_to_plan: 1, missed: 0 }) }]);
    expect(stats.queues[0]!.figures.average_handling_s).not.toBeNull();
    // Four waited (all but the one nobody was online for); the one swept waited at least until its sweep.
    expect(stats.totals.longest_wait_s).not.toBeNull();
  });

  test('a chat waiting now counts in the longest wait, as it grows', async () => {
    await setPresence('online');
    const waiting = await startChat();
    const record = await conversationOf(waiting);
    await server.ctx.db.updateTable('conversations').set({ created_at: new Date(Date.now() - 95_000).toISOString() }).where('id', '=', record.id).execute();
    const stats = (await api('GET', `/stats/handoffs?${period()}`)).json<StatsHandOffs>();
    expect(stats.queues[0]!.figures.waiting_now).toBe(1);
    expect(stats.queues[0]!.figures.longest_wait_s).toBeGreaterThanOrEqual(95);
    await server.ctx.sessions.handleTurn(waiting, 'customer-left', { type: 'hangup' });
  });
});
