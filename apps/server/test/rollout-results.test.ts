import type { AddressInfo } from 'node:net';
import type { CallReportRecord, Rollout, RolloutResults, StatsPlanDetail, StatsPlans } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import { buildReport, createSession, type Session } from '@voxplan/engine';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkAutoRollbacks } from '../src/modules/rollouts/auto-rollback.ts';
import { saveReport } from '../src/modules/sessions/call-reports.repository.ts';
import { createSessionRuntime, type SessionRuntime, type StartRequest } from '../src/modules/sessions/sessions.service.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { openFeed } from './live-feed.ts';
import { planEdge as edge, planNode as node, testClock } from './sessions-helpers.ts';

/**
 * Goals, results per version and the automatic rollback (issue 41, docs/rollouts.md): sessions run
 * through the real turn runner on a plan whose rollout pins some callers to the new version; the
 * rule's cases from reports stored as the report writer stores them.
 */

let server: TestServer;
let member: TenantMember;
let baseUrl: string;
let scripts: LuaScriptRunner;
let runtime: SessionRuntime;
let plan: VisualPlan;
/** The calls run an hour after the rollout starts (the server's real time): `at(m)` is m minutes past that. */
const T0 = Math.floor(Date.now() / 60_000) * 60_000 + 3_600_000;
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const clock = testClock(at(0));
let serial = 0;

type Body = Record<string, unknown>;
const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: Body, token = member.token) => server.call({ method, url, token, ...(payload && { payload }) });

async function ok<T>(response: Promise<LightMyRequestResponse>, status = 200): Promise<T> {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer.json<T>();
}

/**
 * A menu: 1 thanks for paying (the goal "paid") and hangs up; 2 hangs up; 4 dials the desk. The new
 * version adds 3, a block that enters itself until the engine stops the session (a failure).
 */
function frontDesk(deskId: number, withLoop: boolean) {
  return {
    format_version: 1,
    nodes: [
      node('start', 'start'),
      node('menu', 'voice_menu', {
        voice_text: 'Press 1 to pay.',
        options: [{ digits: '1', label: 'Pay' }, { digits: '2', label: 'Leave' }, ...(withLoop ? [{ digits: '3', label: 'Loop' }] : []), { digits: '4', label: 'Desk' }],
      }),
      node('thanks', 'play_message', { voice_text: 'Paid, thank you.', goal: 'paid' }),
      { ...node('bye', 'hangup'), label: 'Goodbye' },
      node('desk', 'destination', { destination_id: deskId }),
      ...(withLoop ? [node('spin', 'variable', { assignments: [{ name: 'n', value: '1' }] })] : []),
    ],
    edges: [
      edge('start', 'next', 'menu'),
      edge('menu', '1', 'thanks'),
      edge('thanks', 'next', 'bye'),
      edge('menu', '2', 'bye'),
      edge('menu', '4', 'desk'),
      ...(withLoop ? [edge('menu', '3', 'spin'), edge('spin', 'next', 'spin')] : []),
    ],
  };
}

async function saveDraft(document: Body): Promise<number> {
  const current = await ok<VisualPlanDocument>(api('GET', `/visual-plans/${plan.id}/document`));
  return (await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${plan.id}/document`, { base_version: current.version, ...document }))).version;
}

const voice = (caller: string): StartRequest => ({ id: `CA-results-${++serial}`, tenant_id: member.tenantId, plan_id: plan.id, channel: 'voice', provider: 'twilio', caller, called: '+551130004199' });

/** A call from `caller` at `at`: each step a minute after the last. Answers its session id and version. */
async function call(start: string, caller: string, ...steps: Parameters<SessionRuntime['handleTurn']>[2][]): Promise<{ id: string; version: number }> {
  clock.set(start);
  const request = voice(caller);
  await runtime.start(request);
  const version = (await runtime.find(request.id!))!.session.plan_version;
  for (const [index, event] of steps.entries()) {
    clock.advance(1);
    await runtime.handleTurn(request.id!, `${request.id}:${index}`, event);
  }
  return { id: request.id!, version };
}

const results = (query = '') => ok<RolloutResults>(api('GET', `/visual-plans/${plan.id}/rollout/results${query}`));
let base = 0;
let candidate = 0;
const PINNED = ['+5511800000001', '+5511800000002', '+5511800000003'];

beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}/api/v1`;
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'rollout-results');
  scripts = new LuaScriptRunner({ workers: 1 });
  runtime = createSessionRuntime(server.ctx, { scripts, clock });
  const desk = await ok<{ id: number }>(api('POST', '/destinations', { name: 'Desk', kind: 'voice', uri: 'sip:desk@pbx.example' }), 201);
  plan = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Front desk' }), 201);
  base = await saveDraft(frontDesk(desk.id, false));
  await ok(api('POST', `/visual-plans/${plan.id}/publish`, { base_version: base }));
  // Before the rollout: not one of its sessions.
  await call(at(-120), '+5511900000000', { type: 'digits', digits: '1' });
  candidate = await saveDraft(frontDesk(desk.id, true));
  await ok(api('POST', `/visual-plans/${plan.id}/publish`, { base_version: candidate, rollout: { share: 0, pinned: PINNED } }));
});

afterAll(async () => {
  await scripts?.close();
  await server?.close();
});

describe('goals', () => {
  test('the report names the goal the session reached, as the person named it; the reports filter by it', async () => {
    const paid = await call(at(0), '+5511900000001', { type: 'digits', digits: '1' });
    const left = await call(at(10), '+5511900000002', { type: 'digits', digits: '2' });
    const reportOf = async (sessionId: string) => (await ok<CallReportRecord[]>(api('GET', `/reports?filter=${encodeURIComponent(JSON.stringify({ where: { session_id: sessionId } }))}`)))[0]!;
    expect((await reportOf(paid.id)).goal).toBe('paid');
    expect((await reportOf(left.id)).goal).toBeNull();
    const converted = await ok<CallReportRecord[]>(api('GET', `/reports?filter=${encodeURIComponent(JSON.stringify({ where: { goal: 'paid', plan_id: plan.id } }))}`));
    expect(converted.map((report) => report.session_id).sort()).toEqual(expect.arrayContaining([paid.id]));
    expect(converted.every((report) => report.goal === 'paid')).toBe(true);
  });

  test('a goal that is not a text is refused when the plan is saved', async () => {
    const current = await ok<VisualPlanDocument>(api('GET', `/visual-plans/${plan.id}/document`));
    const broken = { ...frontDesk(1, false), nodes: frontDesk(1, false).nodes.map((entry) => (entry.id === 'thanks' ? { ...entry, data: { ...entry.data, goal: 7 } } : entry)) };
    const response = await api('PUT', `/visual-plans/${plan.id}/document`, { base_version: current.version, ...broken });
    expect(response.statusCode, response.body).toBe(400);
    expect(errorOf(response).code).toBe('invalid_plan');
    expect(JSON.stringify(errorOf(response).details)).toContain('"goal"');
  });
});

describe('results per version', () => {
  test('count a known sequence of sessions exactly, each version apart, from the rollout’s start', async () => {
    // The goals test ran two base sessions (one paid at 60 s, one left at 60 s). Two more on the base:
    const hungUp = await call(at(20), '+5511900000003', { type: 'hangup' });
    const routed = await call(at(30), '+5511900000004', { type: 'digits', digits: '4' }, { type: 'dial_result', status: 'answer' });
    // The pinned callers meet the candidate: paid at 60 s, a loop the engine stops, paid at 180 s.
    const pinnedPaid = await call(at(40), PINNED[0]!, { type: 'digits', digits: '1' });
    const loop = await call(at(50), PINNED[1]!, { type: 'digits', digits: '3' });
    const slow = await call(at(60), PINNED[2]!, { type: 'digits', digits: '9' }, { type: 'digits', digits: '9' }, { type: 'digits', digits: '1' });
    expect([hungUp, routed].map((run) => run.version)).toEqual([base, base]);
    expect([pinnedPaid, loop, slow].map((run) => run.version)).toEqual([candidate, candidate, candidate]);

    const answer = await results();
    expect(answer.rollout).toMatchObject({ plan_id: plan.id, base_version: base, candidate_version: candidate, state: 'running' });
    const [baseResult, candidateResult] = answer.versions;
    expect({ ...baseResult, drop_off: undefined }).toEqual({
      version: base,
      share: 100,
      sessions: 4,
      retained: 2,
      routed: 1,
      abandoned: 1,
      converted: 1,
      goal_rate: 0.25,
      // 60, 60, 60 and 120 s.
      median_duration_ms: 60_000,
      failures: 0,
      drop_off: undefined,
    });
    expect({ ...candidateResult, drop_off: undefined }).toEqual({
      version: candidate,
      share: 0,
      sessions: 3,
      retained: 2,
      routed: 0,
      abandoned: 0,
      converted: 2,
      goal_rate: 2 / 3,
      median_duration_ms: 60_000,
      failures: 1,
      drop_off: undefined,
    });
    const dropOff = (result: RolloutResults['versions'][number]) => Object.fromEntries(result.drop_off.map((block) => [block.name, [block.entered, block.ended]]));
    // Named as a person reads them: the name given ("Goodbye"), else the block type's.
    expect(dropOff(baseResult)).toEqual({ Start: [4, 0], 'Voice menu': [4, 1], 'Play message': [1, 0], Goodbye: [2, 2], Destination: [1, 1] });
    expect(dropOff(candidateResult)).toMatchObject({ Start: [3, 0], 'Voice menu': [3, 0], 'Play message': [2, 0], Goodbye: [2, 2] });
    expect(candidateResult.drop_off.find((block) => block.node_id === 'spin')).toMatchObject({ ended: 1 });
    // Far too few sessions to compare.
    expect(answer.comparison).toEqual({ enough_data: false, goal_rate_difference: expect.closeTo(2 / 3 - 0.25, 10), confidence: null });
  });

  test('the plan’s statistics per version, and the dashboard’s rows with the running rollout', async () => {
    const period = `from=${encodeURIComponent(at(-240))}&to=${encodeURIComponent(at(240))}`;
    const detail = (version?: number) => ok<StatsPlanDetail>(api('GET', `/stats/plans/${plan.id}?${period}${version === undefined ? '' : `&plan_version=${version}`}`));
    const [all, ofBase, ofCandidate] = await Promise.all([detail(), detail(base), detail(candidate)]);
    expect([all.versions, ofBase.versions]).toEqual([
      [base, candidate],
      [base, candidate],
    ]);
    // The base: the session before the rollout, the goals test's two and the results test's two.
    expect(ofBase.figures).toMatchObject({ sessions: 5, calls: 5, retained: 3, routed: 1, abandoned: 1, failed: 0 });
    expect(ofCandidate.figures).toMatchObject({ sessions: 3, calls: 3, retained: 2, routed: 0, abandoned: 0, failed: 1 });
    const blocks = (answer: StatsPlanDetail) => Object.fromEntries(answer.nodes.map((block) => [block.node_id, [block.entered, block.ended]]));
    expect(blocks(ofBase)).toEqual({ start: [5, 0], menu: [5, 1], thanks: [2, 0], bye: [3, 3], desk: [1, 1] });
    expect(blocks(ofCandidate)).toMatchObject({ start: [3, 0], menu: [3, 0], thanks: [2, 0], bye: [2, 2], spin: [expect.any(Number), 1] });
    const keys = (answer: StatsPlanDetail) => Object.fromEntries(answer.digits.map((entry) => [`${entry.node_id} ${entry.digits}`, entry.count]));
    expect(keys(ofCandidate)).toEqual({ 'menu 1': 2, 'menu 3': 1, 'menu 9': 2 });
    // Counted from the reports, the versions add up to what the rollups count for the plan.
    for (const figure of ['sessions', 'calls', 'chats', 'retained', 'routed', 'abandoned', 'failed', 'expired', 'missed'] as const) {
      expect(ofBase.figures[figure] + ofCandidate.figures[figure], figure).toBe(all.figures[figure]);
    }
    expect(ofBase.figures.average_duration_s! * 5 + ofCandidate.figures.average_duration_s! * 3).toBeCloseTo(all.figures.average_duration_s! * 8, 6);
    for (const block of all.nodes) {
      const sum = [ofBase, ofCandidate].map((one) => one.nodes.find((entry) => entry.node_id === block.node_id) ?? { entered: 0, ended: 0 });
      expect([sum[0]!.entered + sum[1]!.entered, sum[0]!.ended + sum[1]!.ended], block.node_id).toEqual([block.entered, block.ended]);
    }
    // A version the plan never ran: nothing.
    expect((await detail(candidate + 5)).figures.sessions).toBe(0);

    // The dashboard's rows bring each plan's running rollout: no request per row.
    const rows = await ok<StatsPlans>(api('GET', `/stats/plans?${period}`));
    expect(rows.plans.find((row) => row.plan_id === plan.id)).toMatchObject({ plan_name: 'Front desk', figures: { sessions: 8 }, rollout: { base_version: base, candidate_version: candidate, share: 0 } });
  });

  test('a plan without a rollout, or another tenant, gets 404', async () => {
    const other = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'No rollout' }), 201);
    const none = await api('GET', `/visual-plans/${other.id}/rollout/results`);
    expect(none.statusCode).toBe(404);
    expect(errorOf(none).code).toBe('rollout_not_found');
    const admin = await server.login();
    const stranger = await createTenantMember(server, admin, 'rollout-results-other');
    expect((await api('GET', `/visual-plans/${plan.id}/rollout/results`, undefined, stranger.token)).statusCode).toBe(404);
  });
});

/** Reports of a version as the report writer stores them: `converted` reached the goal, `failed` ended in an engine error. */
async function simulate(planId: number, version: number, counts: { sessions: number; converted: number; failed?: number }, when: string): Promise<void> {
  for (let index = 0; index < counts.sessions; index++) {
    const created = createSession(
      { id: `sim-${++serial}`, tenant_id: member.tenantId, plan_id: planId, channel: 'voice', provider: 'twilio', caller: `+55119${String(serial).padStart(8, '0')}`, called: '+551130004199' },
      { version, name: 'Simulated' },
      new Date(when),
    );
    const failed = index < (counts.failed ?? 0);
    const session: Session = {
      ...created,
      status: 'ended',
      ended_at: new Date(Date.parse(when) + 30_000).toISOString(),
      disposition: failed ? 'failed' : 'retained',
      hangup_cause: failed ? 'engine_error' : 'normal_clearing',
      ...(index >= counts.sessions - counts.converted && { goal: { name: 'paid', path_index: 0 } }),
    };
    await saveReport(server.ctx.db, buildReport(session), false, new Date().toISOString());
  }
}

/** A plan with a running rollout of version 2 over version 1, and its rule. */
async function rolloutWith(name: string, rule: Rollout['auto_rollback']): Promise<{ plan: VisualPlan; rollout: Rollout; base: number; candidate: number }> {
  const created = await ok<VisualPlan>(api('POST', '/visual-plans', { name }), 201);
  const saveOn = async (document: Body) => {
    const current = await ok<VisualPlanDocument>(api('GET', `/visual-plans/${created.id}/document`));
    return (await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${created.id}/document`, { base_version: current.version, ...document }))).version;
  };
  const document = { format_version: 1, nodes: [node('start', 'start'), node('bye', 'hangup', { goal: 'paid' })], edges: [edge('start', 'next', 'bye')] };
  const first = await saveOn(document);
  await ok(api('POST', `/visual-plans/${created.id}/publish`, { base_version: first }));
  const second = await saveOn({ ...document, nodes: [node('start', 'start', { generate_protocol: true }), node('bye', 'hangup', { goal: 'paid' })] });
  const published = await ok<{ rollout: Rollout }>(api('POST', `/visual-plans/${created.id}/publish`, { base_version: second, rollout: { share: 50, pinned: [], auto_rollback: rule } }));
  return { plan: created, rollout: published.rollout, base: first, candidate: second };
}

describe('automatic rollback', () => {
  test('rolls back a candidate whose goal rate is worse at 95 % confidence, audited as the server, told on the live feed', async () => {
    const { plan: worse, rollout, base: v1, candidate: v2 } = await rolloutWith('Checkout', { goal_worse: true, max_failure_rate: null });
    const when = new Date(Date.parse(rollout.started_time) + 60_000).toISOString();
    // 60 of 200 against 40 of 200: z = -2.309, confidence 97.9 % (results-statistics.test.ts computes it by hand).
    await simulate(worse.id, v1, { sessions: 200, converted: 60 }, when);
    await simulate(worse.id, v2, { sessions: 200, converted: 40 }, when);
    const comparison = (await ok<RolloutResults>(api('GET', `/visual-plans/${worse.id}/rollout/results`))).comparison;
    expect(comparison.enough_data).toBe(true);
    expect(comparison.goal_rate_difference).toBeCloseTo(-0.1, 10);
    expect(comparison.confidence).toBeCloseTo(0.979079, 5);

    // The console's feed on every screen: rollbacks only, not the sessions' events (a call starts while it is open).
    const feed = await openFeed(`${baseUrl}/stats/live/events?only=rollouts`, member.token);
    const everything = await openFeed(`${baseUrl}/stats/live/events`, member.token);
    try {
      await runtime.start(voice('+5511900000099'));
      await expect.poll(() => everything.events.some((event) => event.type === 'session.started')).toBe(true);
      const rolledBack = await checkAutoRollbacks(server.ctx, new Date(Date.parse(when) + 60_000));
      expect(rolledBack).toContain(rollout.id);
      await expect.poll(() => feed.events.length).toBe(1);
      expect(feed.events[0]).toEqual({
        type: 'rollout.auto_rollback',
        rollout_id: rollout.id,
        plan_id: worse.id,
        plan_name: 'Checkout',
        base_version: v1,
        candidate_version: v2,
        cause: { rule: 'goal_worse', candidate_goal_rate: 0.2, base_goal_rate: 0.3, confidence: expect.closeTo(0.979079, 5) },
        note: expect.stringContaining('Automatic rollback of “Checkout”'),
        at: expect.any(String),
      });
    } finally {
      feed.close();
      everything.close();
    }
    const unknownKind = await api('GET', '/stats/live/events?only=blocks');
    expect([unknownKind.statusCode, errorOf(unknownKind).code]).toEqual([400, 'invalid_input']);
    const history = await ok<Rollout[]>(api('GET', `/visual-plans/${worse.id}/rollouts`));
    expect(history[0]).toMatchObject({ id: rollout.id, state: 'rolled_back', ended_reason: 'auto_rollback', ended_by: null });
    expect(history[0]!.ended_note).toBe(
      `Automatic rollback of “Checkout”: version ${v2}'s goal rate was 20 % (40 of 200 sessions) against 30 % (60 of 200) for version ${v1}, worse at 97.9 % confidence.`,
    );
    expect(await ok<{ rollout: Rollout | null }>(api('GET', `/visual-plans/${worse.id}/rollout`))).toEqual({ rollout: null });
    const plans = await server.ctx.db.selectFrom('visual_plans').select(['published_version', 'rollout_version']).where('id', '=', worse.id).executeTakeFirstOrThrow();
    expect(plans).toEqual({ published_version: v1, rollout_version: null });
    const audit = await server.ctx.db.selectFrom('audit_log').selectAll().where('entity', '=', 'plan_rollout').where('entity_id', '=', String(rollout.id)).orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ action: 'update', user_id: null, username: null, tenant_id: member.tenantId });
    expect(JSON.parse(audit.after!)).toMatchObject({ state: 'rolled_back', ended_reason: 'auto_rollback', plan_name: 'Checkout' });
  });

  test('rolls back a candidate whose sessions fail more often than the rule allows', async () => {
    const { plan: failing, rollout, candidate: v2 } = await rolloutWith('Billing', { goal_worse: false, max_failure_rate: 10 });
    const when = new Date(Date.parse(rollout.started_time) + 60_000).toISOString();
    await simulate(failing.id, v2, { sessions: 40, converted: 10, failed: 8 }, when);
    expect(await checkAutoRollbacks(server.ctx, new Date(Date.parse(when) + 60_000))).toContain(rollout.id);
    const [ended] = await ok<Rollout[]>(api('GET', `/visual-plans/${failing.id}/rollouts`));
    expect(ended).toMatchObject({ state: 'rolled_back', ended_reason: 'auto_rollback' });
    expect(ended!.ended_note).toBe(`Automatic rollback of “Billing”: 8 of 40 sessions of version ${v2} (20 %) ended in an engine error or a failed hand-off, above the 10 % allowed.`);
  });

  test('leaves a rollout running with too few sessions, with a rule not met, or without a rule; checks each once a minute', async () => {
    const few = await rolloutWith('Few', { goal_worse: true, max_failure_rate: 10 });
    const when = new Date(Date.parse(few.rollout.started_time) + 60_000).toISOString();
    // Every candidate session failed and none converted, but only 29 of them, against 29 on the base.
    await simulate(few.plan.id, few.base, { sessions: 29, converted: 20 }, when);
    await simulate(few.plan.id, few.candidate, { sessions: 29, converted: 0, failed: 29 }, when);
    const better = await rolloutWith('Better', { goal_worse: true, max_failure_rate: 50 });
    await simulate(better.plan.id, better.base, { sessions: 100, converted: 20 }, when);
    await simulate(better.plan.id, better.candidate, { sessions: 100, converted: 40, failed: 10 }, when);
    const none = await rolloutWith('No rule', null);
    await simulate(none.plan.id, none.candidate, { sessions: 100, converted: 0, failed: 100 }, when);

    const now = new Date(Date.parse(when) + 120_000);
    expect(await checkAutoRollbacks(server.ctx, now)).toEqual([]);
    for (const { plan: each } of [few, better, none]) expect((await ok<{ rollout: Rollout | null }>(api('GET', `/visual-plans/${each.id}/rollout`))).rollout?.state).toBe('running');
    // One more failed session makes 30: due again only a minute later, then rolled back.
    await simulate(few.plan.id, few.candidate, { sessions: 1, converted: 0, failed: 1 }, when);
    await simulate(few.plan.id, few.base, { sessions: 1, converted: 0 }, when);
    expect(await checkAutoRollbacks(server.ctx, new Date(now.getTime() + 10_000))).toEqual([]);
    expect(await checkAutoRollbacks(server.ctx, new Date(now.getTime() + 60_000))).toEqual([few.rollout.id]);
  });
});
