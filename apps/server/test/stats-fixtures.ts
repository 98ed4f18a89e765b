/**
 * The set-up of stats.test.ts and stats-rollups.test.ts: two tenants whose sessions run through the
 * real turn runner on a test clock, and the calls that read statistics and reports. The bindings are
 * set by useStatsServer's hooks.
 */
import type { CallReportRecord, StatsFigures } from '@voxplan/contracts';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { afterAll, beforeAll, expect } from 'vitest';
import { createSessionRuntime, type SessionRuntime, type StartRequest } from '../src/modules/sessions/sessions.service.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, storePlan, testClock } from './sessions-helpers.ts';

export let server: TestServer;
export let admin: string;
export let a: TenantMember;
export let b: TenantMember;
export let scripts: LuaScriptRunner;
export const clock = testClock('2026-11-20T12:00:00.000Z');
export let runtime: SessionRuntime;
export const plans = { menu: 0, sub: 0, other: 0 };

/** A voice menu: 1 dials a desk, 2 runs a sub-plan that hangs up; no key hangs up here. */
export function menuPlan(deskId: number, subPlanId: number): FixtureDocument {
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

export const hangupPlan = (): FixtureDocument => ({
  format_version: 1,
  settings: {},
  nodes: [planNode('start', 'start'), planNode('done', 'hangup', { cause: 'normal_clearing' })],
  edges: [planEdge('start', 'next', 'done')],
});

export let serial = 0;
export const voice = (tenantId: number, planId: number): StartRequest => ({
  id: `CA-stats-${++serial}`,
  tenant_id: tenantId,
  plan_id: planId,
  channel: 'voice',
  provider: 'twilio',
  caller: '+5511999990000',
  called: '+551130000000',
});

/** One call at `at`, driven by `steps` (events in order), one minute apart. */
export async function call(at: string, request: StartRequest, ...steps: Parameters<SessionRuntime['handleTurn']>[2][]): Promise<string> {
  clock.set(at);
  const id = request.id!;
  await runtime.start(request);
  for (const [index, event] of steps.entries()) {
    clock.advance(1);
    await runtime.handleTurn(id, `${id}:${index}`, event);
  }
  return id;
}

export const get = async <T>(url: string, token: string, tenant?: number): Promise<T> => {
  const response = await server.call({ method: 'GET', url, token, ...(tenant !== undefined && { tenant }) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
};

export const period = (from: string, to: string, extra = '') => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${extra}`;
/** The whole test period: every session below starts in it. */
export const ALL = period('2026-11-19T00:00:00Z', '2026-11-23T00:00:00Z');

/** The reports /reports answers, of the whole test period (ALL) only. */
export async function reportsOf(token: string, where: Record<string, unknown> = {}): Promise<CallReportRecord[]> {
  const reports = await get<CallReportRecord[]>(`/reports?${q('filter', { where, limit: 1000 })}`, token);
  return reports.filter((report) => report.start_time >= '2026-11-19T00:00:00.000Z' && report.start_time < '2026-11-23T00:00:00.000Z');
}

/** The figures the reports make, counted here one by one. */
export function figuresFrom(reports: CallReportRecord[]): StatsFigures {
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

/** Starts the server and runs the sessions the statistics are read from. */
export function useStatsServer(): void {
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
}
