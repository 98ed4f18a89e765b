import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

test.each(['voice', 'chat'] as const)('a %s session takes the %s exit', async (channel) => {
  const run = await runPlan(planAround({ id: 'switch', type: 'voice_chat_switch' }, ['voice', 'chat']), { channel });
  expect(run.exitOf('switch')).toBe(channel);
  expect(run.session.variables).toEqual({});
});
