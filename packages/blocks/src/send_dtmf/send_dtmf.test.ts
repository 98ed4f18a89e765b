import { expect, test } from 'vitest';
import { validatePlanDocument } from '../plan/validate.ts';
import { planAround, runPlan } from '../test-helpers.ts';

test('voice sends the tones, with digits from variables and pauses', async () => {
  const plan = planAround({ id: 'dtmf', type: 'send_dtmf', data: { digits: '{{extension}}w#' } }, ['next']);
  const run = await runPlan(plan);
  expect(run.actions[0]).toEqual({ type: 'send_dtmf', digits: 'w#' });
  expect(run.exitOf('dtmf')).toBe('next');
});

test('chat skips the block', async () => {
  const run = await runPlan(planAround({ id: 'dtmf', type: 'send_dtmf', data: { digits: '123' } }, ['next']), { channel: 'chat' });
  expect(run.actions.some((action) => action.type === 'send_dtmf')).toBe(false);
  expect(run.exitOf('dtmf')).toBe('next');
});

test('only keypad symbols, w and variables are accepted', () => {
  expect(validatePlanDocument(planAround({ id: 'dtmf', type: 'send_dtmf', data: { digits: '12a' } }, ['next'])).ok).toBe(false);
  expect(validatePlanDocument(planAround({ id: 'dtmf', type: 'send_dtmf', data: { digits: '12*#wW{{ext}}' } }, ['next'])).ok).toBe(true);
});
