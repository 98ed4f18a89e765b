import type { CallReportRecord, Rollout, RolloutResults, StatsPlanDetail, StatsPlans } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument, VisualPlanPublished } from '@voxplan/contracts/visual-plan';
import { buildReport } from '@voxplan/engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { saveReport } from '../src/modules/sessions/call-reports.repository.ts';
import { dialect } from './harness.ts';
import { statementsOf } from './pg-statements.ts';
import {
  ACCOUNT,
  api,
  auditOf,
  call,
  closeRollouts,
  current,
  expectCode,
  frontDesk,
  hook,
  member,
  nextSerial,
  numbersFor,
  ok,
  planRow,
  press1,
  publish,
  PUBLIC_URL,
  RECEPTION_NUMBER,
  save,
  server,
  startRollouts,
  v2,
  v3,
  VOICE_NUMBER,
} from './rollout-fixture.ts';
import { type Instance, planEdge as edge, planNode as node, startInstance } from './sessions-helpers.ts';
import { twilioActionOf, twilioCallForm } from './twilio-callbacks.ts';

/**
 * A staged rollout's end and reach (issue 41, docs/rollouts.md): promote and roll back while
 * sessions run (a running session keeps its version), `call_plan` choosing by the called plan's
 * own rollout, another instance seeing a change at once, and the choice costing no statement.
 */
beforeAll(async () => {
  await startRollouts();
  // Running when the first test starts: version 3 before the pinned contacts only (none here), the rest on 2.
  await ok(publish(frontDesk, v3, { share: 0 }));
});
afterAll(closeRollouts);

describe('promote and roll back while sessions run', () => {
  test('promote: a running call keeps its version to the end, the next call meets the new one', async () => {
    const { candidate } = numbersFor(frontDesk.id, 50, 2);
    const rollout = (await current(frontDesk))!;
    const onBase = await call(candidate[0]!);
    expect(onBase.version).toBe(v2);

    const promoted = await ok<Rollout>(api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`));
    expect(promoted).toMatchObject({ id: rollout.id, state: 'promoted', ended_reason: 'promoted', ended_by_name: member.username });
    expect(await planRow(frontDesk)).toEqual({ published_version: v3, rollout_version: null });
    expect(await press1(onBase.sid, onBase.twiml)).toContain('One, from version two.');
    expect((await call(candidate[0]!)).version).toBe(v3);
    expect(await current(frontDesk)).toBeNull();

    const entries = await auditOf('plan_rollout', rollout.id);
    expect(entries.at(-1)).toMatchObject({ action: 'update', after: { plan_name: 'Front desk', state: 'promoted', base_version: v2, candidate_version: v3 } });
    const planEntries = await auditOf('visual_plan', frontDesk.id);
    expect(planEntries.at(-1)).toMatchObject({ action: 'update', before: { published_version: v2 }, after: { published_version: v3 } });
  });

  test('roll back: a running call keeps the new version to the end, the next call meets the published one', async () => {
    const v4 = await save(frontDesk, 'four');
    const started = await ok<VisualPlanPublished>(publish(frontDesk, v4, { share: 100 }));
    const onCandidate = await call('+5511955550001');
    expect(onCandidate.version).toBe(v4);

    const rolledBack = await ok<Rollout>(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
    expect(rolledBack).toMatchObject({ id: started.rollout!.id, state: 'rolled_back', ended_reason: 'rolled_back', base_version: v3, candidate_version: v4 });
    expect(await planRow(frontDesk)).toEqual({ published_version: v3, rollout_version: null });
    expect(await press1(onCandidate.sid, onCandidate.twiml)).toContain('One, from version four.');
    expect((await call('+5511955550001')).version).toBe(v3);
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`), 404, 'rollout_not_found');

    // The history, newest first; the rolled-back draft may be rolled out (or published) again as the same version.
    const history = await ok<Rollout[]>(api('GET', `/visual-plans/${frontDesk.id}/rollouts`));
    expect(history.map((one) => [one.candidate_version, one.state])).toEqual([
      [v4, 'rolled_back'],
      [v3, 'promoted'],
    ]);
    const again = await ok<VisualPlanPublished>(publish(frontDesk, v4, { share: 0, pinned: ['+5511955550002'] }));
    expect(again.rollout).toMatchObject({ candidate_version: v4, state: 'running' });
    expect((await call('+5511955550002')).version).toBe(v4);
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
    expect((await ok<VisualPlanPublished>(publish(frontDesk, v4))).rollout).toBeNull();
    expect(await planRow(frontDesk)).toEqual({ published_version: v4, rollout_version: null });
  });
});

describe('call_plan', () => {
  test("the called plan's own rollout chooses, by the caller's number", async () => {
    const reception = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Reception' }), 201);
    const receptionDocument = {
      format_version: 1,
      nodes: [node('start', 'start'), node('desk', 'call_plan', { plan_id: frontDesk.id })],
      edges: [edge('start', 'next', 'desk')],
    };
    const base = (await ok<VisualPlanDocument>(api('GET', `/visual-plans/${reception.id}/document`))).version;
    const saved = await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${reception.id}/document`, { base_version: base, ...receptionDocument }));
    await ok(publish(reception, saved.version));
    await ok(api('POST', '/numbers', { number: RECEPTION_NUMBER, provider: 'twilio', voice_plan_id: reception.id }), 201);

    const v5 = await save(frontDesk, 'five');
    await ok(publish(frontDesk, v5, { share: 50 }));
    const { candidate, base: rest } = numbersFor(frontDesk.id, 50, 2);
    for (const number of candidate) {
      const reached = await call(number, RECEPTION_NUMBER);
      expect(reached.twiml).toContain('Version five. Press 1.');
      expect((await server.ctx.sessions.find(reached.sid))!.session.call_stack).toEqual([expect.objectContaining({ plan_id: frontDesk.id, plan_version: v5 })]);
      // The same caller straight to the front desk meets the same version.
      expect((await call(number)).version).toBe(v5);
    }
    for (const number of rest) expect((await call(number, RECEPTION_NUMBER)).twiml).toContain('Version four. Press 1.');
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
  });
});

describe("results of a plan reached only through call_plan", () => {
  const SHOP_NUMBER = '+551130004104';
  /** A payment menu whose text names the version: 1 pays (the goal "paid"), 2 leaves. */
  const payment = (words: string) => ({
    format_version: 1,
    nodes: [
      node('start', 'start'),
      node('menu', 'voice_menu', { voice_text: `${words} payment. Press 1 to pay.`, options: [{ digits: '1', label: 'Pay' }, { digits: '2', label: 'Leave' }] }),
      node('thanks', 'play_message', { voice_text: 'Paid, thank you.', goal: 'paid' }),
      node('bye', 'hangup'),
    ],
    edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'thanks'), edge('thanks', 'next', 'bye'), edge('menu', '2', 'bye')],
  });
  const saveDocument = async (plan: { id: number }, document: object) => {
    const base = (await ok<VisualPlanDocument>(api('GET', `/visual-plans/${plan.id}/document`))).version;
    return (await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${plan.id}/document`, { base_version: base, ...document }))).version;
  };
  /** A call to the shop that presses `digits` at the payment menu, which ends it: its session id. */
  async function pay(from: string, digits: string, menu: string): Promise<string> {
    const first = await call(from, SHOP_NUMBER);
    expect(first.twiml).toContain(menu);
    const answer = await hook(twilioActionOf(first.twiml, 'Gather', PUBLIC_URL), twilioCallForm({ account: ACCOUNT, callSid: first.sid, from, to: SHOP_NUMBER }, { Digits: digits }));
    expect(answer.statusCode, answer.body).toBe(200);
    expect((await server.ctx.sessions.find(first.sid))!.session.status).toBe('ended');
    return first.sid;
  }
  const rowsOf = (sessionIds: string[]) =>
    server.ctx.db
      .selectFrom('call_report_plans as p')
      .innerJoin('call_reports as r', 'r.id', 'p.report_id')
      .select(['r.session_id', 'p.plan_id', 'p.plan_version', 'p.goal'])
      .where('r.session_id', 'in', sessionIds)
      .orderBy('r.session_id')
      .execute();

  test('counts the sessions that entered it at each version, its own blocks and the goal reached there; a call without call_plan keeps no row', async () => {
    const paymentPlan = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Payment' }), 201);
    const old = await saveDocument(paymentPlan, payment('Old'));
    await ok(publish(paymentPlan, old));
    const shop = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Shop' }), 201);
    const shopVersion = await saveDocument(shop, {
      format_version: 1,
      nodes: [node('start', 'start'), node('pay', 'call_plan', { plan_id: paymentPlan.id })],
      edges: [edge('start', 'next', 'pay')],
    });
    await ok(publish(shop, shopVersion));
    await ok(api('POST', '/numbers', { number: SHOP_NUMBER, provider: 'twilio', voice_plan_id: shop.id }), 201);
    const fresh = await saveDocument(paymentPlan, payment('New'));
    await ok(publish(paymentPlan, fresh, { share: 50 }));

    // The new menu: both callers pay. The old one: one pays, one leaves.
    const { candidate, base } = numbersFor(paymentPlan.id, 50, 2);
    const onNew = [await pay(candidate[0]!, '1', 'New payment.'), await pay(candidate[1]!, '1', 'New payment.')];
    const onOld = [await pay(base[0]!, '1', 'Old payment.'), await pay(base[1]!, '2', 'Old payment.')];
    // A call that runs no call_plan, to its end.
    const plain = await call('+5511944440001');
    await press1(plain.sid, plain.twiml);
    expect((await server.ctx.sessions.find(plain.sid))!.session.status).toBe('ended');

    const results = () => ok<RolloutResults>(api('GET', `/visual-plans/${paymentPlan.id}/rollout/results`));
    const answer = await results();
    const [oldResult, newResult] = answer.versions;
    expect(oldResult).toMatchObject({ version: old, sessions: 2, converted: 1, goal_rate: 0.5, retained: 2, failures: 0 });
    expect(newResult).toMatchObject({ version: fresh, sessions: 2, converted: 2, goal_rate: 1, retained: 2, failures: 0 });
    const dropOff = (result: RolloutResults['versions'][number]) => Object.fromEntries(result.drop_off.map((block) => [block.node_id, [block.entered, block.ended]]));
    // The payment plan's own blocks only: the shop's start and call_plan are not among them.
    expect(dropOff(oldResult!)).toEqual({ start: [2, 0], menu: [2, 0], thanks: [1, 0], bye: [2, 2] });
    expect(dropOff(newResult!)).toEqual({ start: [2, 0], menu: [2, 0], thanks: [2, 0], bye: [2, 2] });
    expect(answer.comparison).toMatchObject({ enough_data: false, goal_rate_difference: 0.5 });

    // The plan's statistics per version count them too (docs/rollouts.md, "Statistics per version"):
    // the rollups, by the plan sessions start in, have none for it.
    const hour = 3_600_000;
    const period = `from=${encodeURIComponent(new Date(Date.now() - hour).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + hour).toISOString())}`;
    const stats = (version?: number) => ok<StatsPlanDetail>(api('GET', `/stats/plans/${paymentPlan.id}?${period}${version === undefined ? '' : `&plan_version=${version}`}`));
    const [all, ofOld, ofNew] = await Promise.all([stats(), stats(old), stats(fresh)]);
    expect([all.versions, all.figures.sessions]).toEqual([[old, fresh], 0]);
    expect(ofOld.figures).toMatchObject({ sessions: 2, calls: 2, retained: 2, abandoned: 0 });
    expect(ofNew.figures).toMatchObject({ sessions: 2, calls: 2, retained: 2 });
    const blocks = (detail: StatsPlanDetail) => Object.fromEntries(detail.nodes.map((block) => [`${block.plan_id === paymentPlan.id ? '' : 'other '}${block.node_id}`, [block.entered, block.ended]]));
    // Its own blocks only, as on its canvas: not the shop's start and call_plan.
    expect(blocks(ofOld)).toEqual({ start: [2, 0], menu: [2, 0], thanks: [1, 0], bye: [2, 2] });
    expect(blocks(ofNew)).toEqual({ start: [2, 0], menu: [2, 0], thanks: [2, 0], bye: [2, 2] });
    expect(Object.fromEntries(ofOld.digits.map((entry) => [`${entry.node_id} ${entry.digits}`, entry.count]))).toEqual({ 'menu 1': 1, 'menu 2': 1 });
    // The dashboard's rows list it under its rollout, with no session started in it: its row opens the figures above.
    const rows = await ok<StatsPlans>(api('GET', `/stats/plans?${period}`));
    expect(rows.plans.find((row) => row.plan_id === paymentPlan.id)).toMatchObject({ plan_name: 'Payment', figures: { sessions: 0 }, rollout: { base_version: old, candidate_version: fresh, share: 50 } });
    expect(rows.plans.find((row) => row.plan_id === shop.id)).toMatchObject({ figures: { sessions: 4 }, rollout: null });
    // The shop's statistics per version are as before: its sessions, all of its blocks.
    const shopStats = await ok<StatsPlanDetail>(api('GET', `/stats/plans/${shop.id}?${period}&plan_version=${shopVersion}`));
    expect([shopStats.versions, shopStats.figures.sessions]).toEqual([[shopVersion], 4]);

    // The reports (docs/api.md, "Reports"): a report's plan and version are those the session started in, its filters
    // too; the plans it entered through call_plan come with it, at the versions they ran.
    const reportsOf = (where: object) => ok<CallReportRecord[]>(api('GET', `/reports?filter=${encodeURIComponent(JSON.stringify({ where }))}`));
    expect(await reportsOf({ plan_id: paymentPlan.id, plan_version: fresh })).toEqual([]);
    const shopReports = await reportsOf({ plan_id: shop.id, plan_version: shopVersion });
    expect(shopReports.map((report) => [report.session_id, report.plan_name, report.called_plans]).sort()).toEqual(
      [...onNew.map((sid) => [sid, fresh, 'paid']), [onOld[0], old, 'paid'], [onOld[1], old, null]]
        .map(([sid, plan_version, goal]) => [sid, 'Shop', [{ plan_id: paymentPlan.id, plan_name: 'Payment', plan_version, goal }]])
        .sort(),
    );
    const csv = await api('GET', `/reports/export.csv?filter=${encodeURIComponent(JSON.stringify({ where: { session_id: onNew[0] } }))}`);
    const [header, line] = csv.body.trim().split('\r\n').map((row) => row.split(','));
    expect(line![header!.indexOf('called_plans')]).toBe(`Payment v${fresh}`);
    const plainReport = (await reportsOf({ session_id: plain.sid }))[0]!;
    expect(plainReport).not.toHaveProperty('called_plans');

    // One row per session that called the plan; none for the call that called no plan.
    expect(await rowsOf([...onNew, ...onOld, plain.sid])).toEqual(
      [...onNew.map((sid) => [sid, fresh, 'paid']), [onOld[0], old, 'paid'], [onOld[1], old, null]]
        .map(([session_id, plan_version, goal]) => ({ session_id, plan_id: paymentPlan.id, plan_version, goal }))
        .sort((a, b) => String(a.session_id).localeCompare(String(b.session_id))),
    );

    // A report stored again (as a recording's analysis does) replaces its rows: nothing counted twice.
    const again = (await server.ctx.sessions.find(onNew[0]!))!.session;
    await saveReport(server.ctx.db, buildReport(again), false, new Date().toISOString());
    expect((await results()).versions[1]).toMatchObject({ sessions: 2, converted: 2 });
    // Deleting a report (the retention job) takes its rows with it.
    await server.ctx.db.deleteFrom('call_reports').where('session_id', '=', onOld[1]!).execute();
    expect(await rowsOf([onOld[1]!])).toEqual([]);
    expect((await results()).versions[0]).toMatchObject({ sessions: 1, converted: 1 });
    await ok(api('POST', `/visual-plans/${paymentPlan.id}/rollout/rollback`));
  });
});

// Instances share a database on PostgreSQL (an instance is another process; on SQLite, another process on the same file).
describe.runIf(dialect === 'postgres')('on another instance', () => {
  let instance: Instance | undefined;
  beforeAll(async () => {
    instance = await startInstance(server.config, new Date().toISOString());
  });
  afterAll(async () => {
    await instance?.close();
  });

  test('the next session there sees a change of the rollout at once', async () => {
    const startThere = async (caller: string) => {
      const outcome = await instance!.start({ tenant_id: member.tenantId, plan_id: frontDesk.id, channel: 'voice', provider: 'twilio', caller, called: VOICE_NUMBER });
      return (await server.ctx.sessions.find(outcome.session_id))!.session.plan_version;
    };
    const published = (await planRow(frontDesk)).published_version!;
    const v7 = await save(frontDesk, 'seven');
    await ok(publish(frontDesk, v7, { share: 0 }));
    // Asked twice there: the instance's plan cache keeps the answer from then on.
    expect([await startThere('+5511977770001'), await startThere('+5511977770001')]).toEqual([published, published]);
    await ok(api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { pinned: ['+5511977770001'] }));
    expect(await startThere('+5511977770001')).toBe(v7);
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`));
    expect(await startThere('+5511977770002')).toBe(v7);
  });
});

describe.runIf(dialect === 'postgres')("a call's first turn", () => {
  /** A third call's first turn, its statements only: the read cache keeps an answer from the second time it is asked. */
  async function steadyCall(from: string): Promise<{ texts: string[]; sid: string }> {
    await call(from);
    await call(from);
    const sid = `CA${String(nextSerial()).padStart(32, '0')}`;
    const texts = await statementsOf(async () => expect((await hook('voice', twilioCallForm({ account: ACCOUNT, callSid: sid, from, to: VOICE_NUMBER }))).statusCode).toBe(200));
    return { texts, sid };
  }

  test('sends as many statements with a rollout running as without', async () => {
    const without = (await steadyCall('+5511966660001')).texts;
    const v6 = await save(frontDesk, 'six');
    await ok(publish(frontDesk, v6, { share: 50, pinned: ['+5511966660002'] }));
    const { texts: withRollout, sid } = await steadyCall('+5511966660002');
    expect((await server.ctx.sessions.find(sid))!.session.plan_version).toBe(v6);
    expect(withRollout.length, withRollout.join('\n')).toBe(without.length);
    // docs/rollouts.md gives the figure: 2 (the start's check and its insert), the plan and its rollout read from the cache.
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
  });
});
