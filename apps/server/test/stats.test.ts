import type { CallReportRecord, StatsDaily, StatsFigures, StatsPlanDetail, StatsPlans, StatsSummary } from '@voxplan/contracts';
import { buildReport, createSession } from '@voxplan/engine';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { saveReport } from '../src/modules/sessions/call-reports.repository.ts';
import { createSessionRuntime, type SessionRuntime, type StartRequest } from '../src/modules/sessions/sessions.service.ts';
import { rebuildStatsRollups } from '../src/db/stats-rollups.ts';
import { createTenantMember, dialect, errorOf, expectInvalid, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, storePlan, testClock } from './sessions-helpers.ts';

/**
 * The statistics API (issue 17) against sessions run through the real turn runner, so the rollups
 * are the ones session ends write: the figures must be those of the reports /reports answers, and
 * of a count made straight over call_reports.
 */

let server: TestServer;
let admin: string;
let a: TenantMember;
let b: TenantMember;
let scripts: LuaScriptRunner;
const clock = testClock('2026-11-20T12:00:00.000Z');
let runtime: SessionRuntime;
const plans = { menu: 0, sub: 0, other: 0 };

/** A voice menu: 1 dials a desk, 2 runs a sub-plan that hangs up; no key hangs up here. */
function menuPlan(deskId: number, subPlanId: number): FixtureDocument {
  return {
    format_version: 1,
    settings: { session_timeout_min: 30 },
    nodes: [
      planNode('start', 'start'),
      planNode('menu', 'voice_menu', {
        voice_text: 'Press 1 for the desk, 2 for more.',
        chat_text: 'Type 1 for the desk, 2 for more.',
        options: [
          { digits: '1', label: 'Desk' },
          { digits: '2', label: 'More' },
        ],
        max_digits: 1,
        timeout_s: 5,
        max_retries: 2,
        invalid_text: 'Not an option.',
      }),
      planNode('desk', 'destination', { destination_id: deskId, timeout_s: 25 }),
      planNode('more', 'call_plan', { plan_id: subPlanId }),
      planNode('bye', 'hangup', { cause: 'normal_clearing' }),
    ],
    edges: [
      planEdge('start', 'next', 'menu'),
      planEdge('menu', '1', 'desk'),
      planEdge('menu', '2', 'more'),
      planEdge('menu', 'timeout', 'bye'),
      planEdge('menu', 'invalid', 'bye'),
      planEdge('desk', 'busy', 'bye'),
      planEdge('desk', 'no_answer', 'bye'),
      planEdge('desk', 'failed', 'bye'),
    ],
  };
}

const hangupPlan = (): FixtureDocument => ({
  format_version: 1,
  settings: {},
  nodes: [planNode('start', 'start'), planNode('done', 'hangup', { cause: 'normal_clearing' })],
  edges: [planEdge('start', 'next', 'done')],
});

let serial = 0;
const voice = (tenantId: number, planId: number): StartRequest => ({
  id: `CA-stats-${++serial}`,
  tenant_id: tenantId,
  plan_id: planId,
  channel: 'voice',
  provider: 'twilio',
  caller: '+5511999990000',
  called: '+551130000000',
});

/** One call at `at`, driven by `steps` (events in order), one minute apart. */
async function call(at: string, request: StartRequest, ...steps: Parameters<SessionRuntime['handleTurn']>[2][]): Promise<string> {
  clock.set(at);
  const id = request.id!;
  await runtime.start(request);
  for (const [index, event] of steps.entries()) {
    clock.advance(1);
    await runtime.handleTurn(id, `${id}:${index}`, event);
  }
  return id;
}

const get = async <T>(url: string, token: string, tenant?: number): Promise<T> => {
  const response = await server.call({ method: 'GET', url, token, ...(tenant !== undefined && { tenant }) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
};

const period = (from: string, to: string, extra = '') => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${extra}`;
/** The whole test period: every session below starts in it. */
const ALL = period('2026-11-19T00:00:00Z', '2026-11-23T00:00:00Z');

/** The reports /reports answers, of the whole test period (ALL) only. */
async function reportsOf(token: string, where: Record<string, unknown> = {}): Promise<CallReportRecord[]> {
  const reports = await get<CallReportRecord[]>(`/reports?${q('filter', { where, limit: 1000 })}`, token);
  return reports.filter((report) => report.start_time >= '2026-11-19T00:00:00.000Z' && report.start_time < '2026-11-23T00:00:00.000Z');
}

/** The figures the reports make, counted here one by one. */
function figuresFrom(reports: CallReportRecord[]): StatsFigures {
  const n = reports.length;
  const count = (disposition: string) => reports.filter((report) => report.disposition === disposition).length;
  const retained = count('retained');
  return {
    sessions: n,
    calls: reports.filter((report) => report.channel === 'voice').length,
    chats: reports.filter((report) => report.channel === 'chat').length,
    routed: count('routed'),
    retained,
    abandoned: count('abandoned'),
    failed: count('failed'),
    missed: count('missed'),
    expired: count('expired'),
    retention_rate: n === 0 ? null : retained / n,
    average_duration_s: n === 0 ? null : reports.reduce((sum, report) => sum + report.duration_s, 0) / n,
  };
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  a = await createTenantMember(server, admin, 'stats-a');
  b = await createTenantMember(server, admin, 'stats-b');
  const desk = await server.call({ method: 'POST', url: '/destinations', token: a.token, payload: { name: 'Desk', kind: 'voice', uri: 'sip:desk@pbx.example' } });
  expect(desk.statusCode, desk.body).toBe(201);
  plans.sub = await storePlan(server.ctx, a.tenantId, hangupPlan(), { name: 'Stats sub' });
  plans.menu = await storePlan(server.ctx, a.tenantId, menuPlan(desk.json<{ id: number }>().id, plans.sub), { name: 'Stats menu' });
  plans.other = await storePlan(server.ctx, b.tenantId, hangupPlan(), { name: 'Other tenant' });

  scripts = new LuaScriptRunner({ workers: 1 });
  runtime = createSessionRuntime(server.ctx, { scripts, clock });

  // In São Paulo (UTC-3) the first call is on the 19th, the next two on the 20th, the last two on the 21st.
  await call('2026-11-20T02:30:00.000Z', voice(a.tenantId, plans.menu), { type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' });
  await call('2026-11-20T12:00:00.000Z', voice(a.tenantId, plans.menu), { type: 'digits', digits: '9' }, { type: 'digits', digits: '2' });
  await call('2026-11-21T01:00:00.000Z', voice(a.tenantId, plans.menu), { type: 'hangup' });
  await call('2026-11-21T15:00:00.000Z', voice(a.tenantId, plans.menu), { type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' });
  clock.set('2026-11-21T16:00:00.000Z');
  const chatId = `chat-stats-${++serial}`;
  await runtime.start({ id: chatId, tenant_id: a.tenantId, plan_id: plans.menu, channel: 'chat', provider: 'webchat', caller: 'visitor', called: 'site' });
  clock.advance(3);
  await runtime.handleTurn(chatId, `${chatId}:1`, { type: 'message', text: '2' });
  // The sub-plan started on its own, and a plan that does not exist: failed.
  await call('2026-11-22T10:00:00.000Z', voice(a.tenantId, plans.sub));
  await call('2026-11-22T11:00:00.000Z', voice(a.tenantId, 999_999));
  // Neither a test session nor another tenant's call counts for tenant a.
  await call('2026-11-20T12:30:00.000Z', { ...voice(a.tenantId, plans.menu), is_test: true }, { type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' });
  await call('2026-11-20T13:00:00.000Z', voice(b.tenantId, plans.other));
});

afterAll(async () => {
  await scripts?.close();
  await server?.close();
});

describe('the figures of a period', () => {
  test('are those of the reports of the period, test sessions left out', async () => {
    const reports = await reportsOf(a.token);
    expect(reports).toHaveLength(7);
    const summary = await get<StatsSummary>(`/stats/summary?${ALL}`, a.token);
    expect(summary).toEqual({ from: '2026-11-19T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z', figures: figuresFrom(reports) });
    // What the runs were made to give.
    expect(summary.figures).toMatchObject({ sessions: 7, calls: 6, chats: 1, routed: 2, retained: 3, abandoned: 1, failed: 1, expired: 0 });
    expect(summary.figures.retention_rate).toBeCloseTo(3 / 7);
  });

  test('match a count made straight over call_reports, for any hours of the period', async () => {
    for (const [from, to] of [
      ['2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'],
      ['2026-11-20T12:00:00.000Z', '2026-11-21T15:00:00.000Z'],
      ['2026-11-21T15:00:00.000Z', '2026-11-22T11:00:00.000Z'],
    ] as const) {
      const rows = await server.ctx.db
        .selectFrom('call_reports')
        .select(['disposition', 'channel'])
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('tenant_id', '=', a.tenantId)
        .where('is_test', '=', 0)
        .where('start_time', '>=', from)
        .where('start_time', '<', to)
        .groupBy(['disposition', 'channel'])
        .execute();
      const sum = (keep: (row: (typeof rows)[number]) => boolean) => rows.filter(keep).reduce((total, row) => total + Number(row.n), 0);
      const { figures } = await get<StatsSummary>(`/stats/summary?${period(from, to)}`, a.token);
      expect(figures, `${from} to ${to}`).toMatchObject({
        sessions: sum(() => true),
        calls: sum((row) => row.channel === 'voice'),
        chats: sum((row) => row.channel === 'chat'),
        routed: sum((row) => row.disposition === 'routed'),
        retained: sum((row) => row.disposition === 'retained'),
        abandoned: sum((row) => row.disposition === 'abandoned'),
        failed: sum((row) => row.disposition === 'failed'),
      });
    }
  });

  test('only the plans asked for', async () => {
    const reports = await reportsOf(a.token, { plan_id: { inq: [plans.sub, 999_999] } });
    const summary = await get<StatsSummary>(`/stats/summary?${ALL}&plan_id=${plans.sub},999999`, a.token);
    expect(summary.figures).toEqual(figuresFrom(reports));
    expect(summary.figures).toMatchObject({ sessions: 2, retained: 1, failed: 1 });
  });

  test('an empty period has no rates', async () => {
    const summary = await get<StatsSummary>(`/stats/summary?${period('2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z')}`, a.token);
    expect(summary.figures).toEqual({
      sessions: 0,
      calls: 0,
      chats: 0,
      routed: 0,
      retained: 0,
      abandoned: 0,
      failed: 0,
      expired: 0,
      missed: 0,
      retention_rate: null,
      average_duration_s: null,
    });
  });
});

describe('days', () => {
  test('begin at midnight in the zone asked for, every day of the period listed', async () => {
    const daily = await get<StatsDaily>(`/stats/daily?${period('2026-11-19T03:00:00Z', '2026-11-23T03:00:00Z')}&tz=America/Sao_Paulo`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-19', 1],
      ['2026-11-20', 2],
      ['2026-11-21', 2],
      ['2026-11-22', 2],
    ]);
    const reports = await reportsOf(a.token);
    const onLocalDay = (day: string) => reports.filter((report) => new Date(Date.parse(report.start_time) - 3 * 3_600_000).toISOString().startsWith(day));
    for (const day of daily.days) expect(day.figures, day.day).toEqual(figuresFrom(onLocalDay(day.day)));
  });

  test('in a zone whose offset is not whole hours, from the hour before its midnight', async () => {
    // India is UTC+5:30: its midnight of the 20th is 18:30 UTC on the 19th, its day counted from 18:00.
    const daily = await get<StatsDaily>(`/stats/daily?${period('2026-11-19T18:30:00Z', '2026-11-22T18:30:00Z')}&tz=Asia/Kolkata`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-20', 2],
      ['2026-11-21', 3],
      ['2026-11-22', 2],
    ]);
  });

  test('of 25 hours when the clocks go back', async () => {
    // New York leaves daylight time at 2:00 on 1 November 2026: that day runs from 04:00 to 05:00 UTC the next.
    await call('2026-11-02T04:30:00.000Z', voice(a.tenantId, plans.sub));
    const daily = await get<StatsDaily>(`/stats/daily?${period('2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z')}&tz=America/New_York`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-10-31', 0],
      ['2026-11-01', 1],
      ['2026-11-02', 0],
    ]);
  });

  test('in UTC by default', async () => {
    const daily = await get<StatsDaily>(`/stats/daily?${ALL}`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-19', 0],
      ['2026-11-20', 2],
      ['2026-11-21', 3],
      ['2026-11-22', 2],
    ]);
    // A period that begins at noon counts its first day from noon.
    const fromNoon = await get<StatsDaily>(`/stats/daily?${period('2026-11-20T12:00:00Z', '2026-11-22T00:00:00Z')}`, a.token);
    expect(fromNoon.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-20', 1],
      ['2026-11-21', 3],
    ]);
  });
});

describe('per plan', () => {
  test('the plans sessions started in, most sessions first, with their names', async () => {
    const { plans: rows } = await get<StatsPlans>(`/stats/plans?${ALL}`, a.token);
    const reports = await reportsOf(a.token);
    expect(rows.map((row) => [row.plan_id, row.plan_name, row.figures.sessions])).toEqual([
      [plans.menu, 'Stats menu', 5],
      [plans.sub, 'Stats sub', 1],
      [999_999, reports.find((report) => report.plan_id === 999_999)!.plan_name, 1],
    ]);
    for (const row of rows) expect(row.figures).toEqual(figuresFrom(reports.filter((report) => report.plan_id === row.plan_id)));
  });

  /** The plan detail of a period against its reports, counted here block by block. */
  async function expectDetailOfReports(query: string, reports: CallReportRecord[]): Promise<StatsPlanDetail> {
    const detail = await get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${query}`, a.token);
    const entered = new Map<string, number>();
    const ended = new Map<string, number>();
    const digits = new Map<string, number>();
    for (const report of reports) {
      for (const node of report.nodes) entered.set(`${node.plan_id}/${node.node_id}`, (entered.get(`${node.plan_id}/${node.node_id}`) ?? 0) + 1);
      const last = `${report.last_node_plan_id}/${report.last_node_id}`;
      ended.set(last, (ended.get(last) ?? 0) + 1);
      for (const entry of report.pressed_digits) {
        const key = `${entry.plan_id}/${entry.node_id}/${entry.digits}`;
        digits.set(key, (digits.get(key) ?? 0) + 1);
      }
    }
    expect(detail.plan_id).toBe(plans.menu);
    expect(detail.figures).toEqual(figuresFrom(reports));
    expect(Object.fromEntries(detail.nodes.map((node) => [`${node.plan_id}/${node.node_id}`, [node.entered, node.ended]]))).toEqual(
      Object.fromEntries([...entered].map(([key, count]) => [key, [count, ended.get(key) ?? 0]])),
    );
    expect(Object.fromEntries(detail.digits.map((entry) => [`${entry.plan_id}/${entry.node_id}/${entry.digits}`, entry.count]))).toEqual(Object.fromEntries(digits));
    return detail;
  }

  test("a plan's blocks: entered, ended (the drop-off), and keys per menu, as its reports have them", async () => {
    const detail = await expectDetailOfReports(ALL, await reportsOf(a.token, { plan_id: plans.menu }));
    // What the runs were made to give: every session entered the menu; two ended at the desk, two
    // in the sub-plan (its own blocks), one hung up at the menu; 1 pressed twice, 2 twice, 9 once.
    const node = (planId: number, nodeId: string) => detail.nodes.find((entry) => entry.plan_id === planId && entry.node_id === nodeId);
    expect(node(plans.menu, 'menu')).toMatchObject({ entered: 5, ended: 1 });
    expect(node(plans.menu, 'desk')).toMatchObject({ entered: 2, ended: 2 });
    expect(node(plans.sub, 'done')).toMatchObject({ entered: 2, ended: 2 });
    expect(detail.digits.filter((entry) => entry.node_id === 'menu').map((entry) => [entry.digits, entry.count])).toEqual([
      ['1', 2],
      ['2', 2],
      ['9', 1],
    ]);
  });

  test('over whole days and the hours at either end of a period alike', async () => {
    const [from, to] = ['2026-11-20T12:00:00.000Z', '2026-11-22T10:30:00.000Z'];
    const inPeriod = (await reportsOf(a.token, { plan_id: plans.menu })).filter((report) => report.start_time >= from && report.start_time < '2026-11-22T10:00:00.000Z');
    expect(inPeriod).toHaveLength(4);
    await expectDetailOfReports(period(from, to), inPeriod);
  });

  test('a plan of another tenant is not found', async () => {
    const response = await server.call({ method: 'GET', url: `/stats/plans/${plans.other}?${ALL}`, token: a.token });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('not_found');
  });
});

describe('tenants', () => {
  test('each reads its own; the administrator every tenant, or the one X-Tenant-Id names', async () => {
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, b.token)).figures.sessions).toBe(1);
    expect((await get<StatsPlans>(`/stats/plans?${ALL}`, b.token)).plans.map((row) => row.plan_id)).toEqual([plans.other]);
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, admin)).figures.sessions).toBe(8);
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, admin, b.tenantId)).figures.sessions).toBe(1);
    // A member naming another tenant still reads its own.
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, b.token, a.tenantId)).figures.sessions).toBe(1);
  });
});

describe('the rollups', () => {
  test('made again from the reports (the migration, the benchmark) are the ones the session ends kept', async () => {
    const before = await Promise.all([get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${ALL}`, admin), get<StatsDaily>(`/stats/daily?${ALL}`, admin)]);
    await rebuildStatsRollups(server.ctx.db, dialect);
    const after = await Promise.all([get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${ALL}`, admin), get<StatsDaily>(`/stats/daily?${ALL}`, admin)]);
    expect(after).toEqual(before);
  });

  test("a report stored again (a recording's analysis after the end) is not counted twice", async () => {
    const [report] = await reportsOf(a.token, { plan_id: plans.sub });
    const session = {
      ...createSession({ id: report!.session_id, tenant_id: a.tenantId, plan_id: plans.sub, channel: 'voice', provider: 'twilio', caller: 'x', called: 'y' }, { version: 1, name: 'Stats sub' }, new Date(report!.start_time)),
      status: 'ended' as const,
      ended_at: report!.end_time,
      disposition: 'retained' as const,
      hangup_cause: 'normal_clearing' as const,
      path: report!.nodes,
    };
    const before = await get<StatsSummary>(`/stats/summary?${ALL}`, a.token);
    await saveReport(server.ctx.db, buildReport(session), false, new Date().toISOString());
    expect(await get<StatsSummary>(`/stats/summary?${ALL}`, a.token)).toEqual(before);
  });
});

describe('sessions that end at the same time', () => {
  test('are all counted, on the same rows', async () => {
    const day = period('2026-10-10T00:00:00Z', '2026-10-11T00:00:00Z');
    clock.set('2026-10-10T09:00:00.000Z');
    const requests = Array.from({ length: 12 }, () => voice(a.tenantId, plans.menu));
    await Promise.all(requests.map((request) => runtime.start(request)));
    clock.advance(1);
    await Promise.all(requests.map((request, index) => runtime.handleTurn(request.id!, `${request.id}:1`, { type: 'digits', digits: index % 2 === 0 ? '1' : '2' })));
    clock.advance(1);
    await Promise.all(requests.filter((_, index) => index % 2 === 0).map((request) => runtime.handleTurn(request.id!, `${request.id}:2`, { type: 'hangup' })));
    const detail = await get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${day}`, a.token);
    expect(detail.figures).toMatchObject({ sessions: 12, retained: 6, abandoned: 6 });
    expect(detail.nodes.find((node) => node.node_id === 'desk')).toMatchObject({ entered: 6, ended: 6 });
    expect(detail.digits.map((entry) => [entry.digits, entry.count])).toEqual([
      ['1', 6],
      ['2', 6],
    ]);
  });
});

describe('a call whose end never arrived', () => {
  test('closed by the retention job (the expire event), counts as expired', async () => {
    const day = period('2026-09-05T00:00:00Z', '2026-09-06T00:00:00Z');
    const id = await call('2026-09-05T08:00:00.000Z', voice(a.tenantId, plans.menu));
    clock.set('2026-09-05T14:00:00.000Z');
    const closed = await runtime.handleTurn(id, `${id}:expire`, { type: 'expire', at: '2026-09-05T08:00:30.000Z' });
    expect(closed.report).toMatchObject({ disposition: 'expired' });
    const detail = await get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${day}`, a.token);
    expect(detail.figures).toMatchObject({ sessions: 1, expired: 1, retained: 0, retention_rate: 0 });
    expect(detail.nodes.find((node) => node.node_id === 'menu')).toMatchObject({ entered: 1, ended: 1 });
  });
});

describe('bad periods', () => {
  test('from, to and tz must be well formed', async () => {
    const at = (query: string) => server.call({ method: 'GET', url: `/stats/summary?${query}`, token: a.token });
    expectInvalid(await at('to=2026-11-23T00:00:00Z'), 'querystring.from');
    expectInvalid(await at(period('yesterday', '2026-11-23T00:00:00Z')), 'querystring.from');
    expectInvalid(await at(period('2026-11-20T00:00:00', '2026-11-23T00:00:00Z')), 'querystring.from');
    expectInvalid(await at(`${ALL}&tz=Mars/Olympus`), 'querystring.tz');
    expectInvalid(await at(`${ALL}&plan_id=1,x`), 'querystring.plan_id');
    expectInvalid(await at(`${ALL}&plan_id=0`), 'querystring.plan_id.0');
  });

  test('to must come after from, and the period may span at most 400 days', async () => {
    const backwards = await server.call({ method: 'GET', url: `/stats/daily?${period('2026-11-23T00:00:00Z', '2026-11-23T00:00:00Z')}`, token: a.token });
    expect(backwards.statusCode).toBe(400);
    expect(errorOf(backwards)).toMatchObject({ code: 'stats_period_invalid', message: 'The period must end after it starts.' });
    const long = await server.call({
      method: 'GET',
      url: `/stats/plans?${period('2025-01-01T00:00:00Z', '2026-03-01T00:00:00Z')}`,
      token: a.token,
      headers: { 'accept-language': 'pt-BR' },
    });
    expect(long.statusCode).toBe(400);
    expect(errorOf(long)).toMatchObject({ code: 'stats_period_too_long', message: 'O período pode abranger no máximo 400 dias.' });
  });

  test('the OpenAPI document describes the calls and their query', async () => {
    const document = (await server.call({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string }> } }> }>();
    for (const path of ['/api/v1/stats/summary', '/api/v1/stats/daily', '/api/v1/stats/plans', '/api/v1/stats/plans/{id}']) {
      const names = document.paths[path]?.get?.parameters?.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      expect(names, path).toEqual(expect.arrayContaining(['from', 'to', 'tz']));
    }
  });

  test('signing in is required', async () => {
    expect((await server.call({ method: 'GET', url: `/stats/summary?${ALL}` })).statusCode).toBe(401);
  });
});
