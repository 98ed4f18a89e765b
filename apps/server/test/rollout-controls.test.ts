import type { Rollout } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument, VisualPlanPublished } from '@voxplan/contracts/visual-plan';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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
  RECEPTION_NUMBER,
  save,
  server,
  startRollouts,
  v2,
  v3,
  VOICE_NUMBER,
} from './rollout-fixture.ts';
import { type Instance, planEdge as edge, planNode as node, startInstance } from './sessions-helpers.ts';
import { twilioCallForm } from './twilio-callbacks.ts';

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
