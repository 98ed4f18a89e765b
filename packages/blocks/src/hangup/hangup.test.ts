import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

test.each(['normal_clearing', 'busy', 'rejected'])('voice: hangs up with cause %s; the session is retained', async (cause) => {
  const run = await runPlan(planAround({ id: 'end', type: 'hangup', data: { cause } }, []));
  expect(run.actions).toEqual([{ type: 'hangup', cause }]);
  expect(run.results[0]!.report).toMatchObject({ hangup_cause: cause, disposition: 'retained', last_node: { node_id: 'end' } });
});

test('the default cause is normal_clearing', async () => {
  expect((await runPlan(planAround({ id: 'end', type: 'hangup' }, []))).session.hangup_cause).toBe('normal_clearing');
});
