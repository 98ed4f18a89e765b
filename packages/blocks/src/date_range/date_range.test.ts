import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const exits = ['in_hours', 'out_of_hours', 'holiday'];

test.each(['in_hours', 'out_of_hours', 'holiday'] as const)('the schedule says %s: the block takes that exit, on voice and chat', async (status) => {
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(planAround({ id: 'hours', type: 'date_range', data: { date_range_id: 5 } }, exits), { channel, world: { schedules: { 5: status } } });
    expect(run.exitOf('hours')).toBe(status);
  }
});

test('a date range that no longer exists ends the session as failed, saying why', async () => {
  const run = await runPlan(planAround({ id: 'hours', type: 'date_range', data: { date_range_id: 5 } }, exits));
  expect(run.session).toMatchObject({ status: 'ended', disposition: 'failed', hangup_cause: 'engine_error' });
  expect(run.session.failure).toMatchObject({ code: 'reference_not_found', node_id: 'hours' });
  expect(run.actions).toEqual([{ type: 'hangup', cause: 'engine_error' }]);
});
