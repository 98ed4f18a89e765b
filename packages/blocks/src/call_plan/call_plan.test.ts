import { expect, test } from 'vitest';
import { planDocument, runPlan } from '../test-helpers.ts';

/** Plan `id` that says its name and calls plan `next` (or hangs up). */
function chainPlan(id: number, next?: number, version = 1) {
  const nodes = [
    { id: 'start', type: 'start' },
    { id: 'say', type: 'play_message', data: { voice_text: `plan ${id} v${version}` } },
    ...(next === undefined ? [] : [{ id: 'go', type: 'call_plan', data: { plan_id: next } }]),
  ];
  const edges: Array<[string, string, string]> = [['start', 'next', 'say'], ...(next === undefined ? [] : [['say', 'next', 'go'] as [string, string, string]])];
  return { ...planDocument(nodes, edges), id, name: `plan ${id}`, version };
}

test("goes on at the start of the other plan's latest published version, which the session pins", async () => {
  const run = await runPlan(chainPlan(1, 2), { plans: [chainPlan(2, undefined, 1), chainPlan(2, undefined, 3)] });
  expect(run.actions.filter((action) => action.type === 'say')).toEqual([
    { type: 'say', text: 'plan 1 v1' },
    { type: 'say', text: 'plan 2 v3' },
  ]);
  expect(run.session.call_stack).toEqual([{ plan_id: 2, plan_version: 3, plan_name: 'plan 2' }]);
  expect(run.results[0]!.report).toMatchObject({ plan_id: 1, plan_name: 'plan 1', last_node: { plan_id: 2, node_id: 'say', type: 'play_message' } });
});

test('a plan that would reach itself ends the session as failed', async () => {
  const run = await runPlan(chainPlan(1, 2), { plans: [chainPlan(2, 3), chainPlan(3, 1)] });
  expect(run.session.failure).toMatchObject({ code: 'plan_recursion', plan_id: 3, node_id: 'go' });
  expect(run.session.disposition).toBe('failed');
});

test('plans may go 8 deep, not more', async () => {
  const plans = Array.from({ length: 9 }, (_, i) => chainPlan(i + 2, i + 3));
  const eight = await runPlan(chainPlan(1, 2), { plans: [...plans.slice(0, 6), chainPlan(8)] });
  expect(eight.session.call_stack).toHaveLength(7);
  expect(eight.session.failure).toBeNull();
  const nine = await runPlan(chainPlan(1, 2), { plans: [...plans.slice(0, 7), chainPlan(9)] });
  expect(nine.session.failure).toMatchObject({ code: 'plan_depth_limit', plan_id: 8 });
});

test('a plan with no published version, or of another tenant, ends the session as failed', async () => {
  const run = await runPlan(chainPlan(1, 2), { channel: 'chat' });
  expect(run.session.failure).toMatchObject({ code: 'reference_not_found' });
  const foreign = { ...chainPlan(2), tenant_id: 2 };
  expect((await runPlan(chainPlan(1, 2), { plans: [foreign] })).session.failure).toMatchObject({ code: 'reference_not_found' });
});
