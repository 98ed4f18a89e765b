import { expect, test } from 'vitest';
import { validatePlanDocument } from '../plan/validate.ts';
import { planAround, runPlan } from '../test-helpers.ts';

test('templates and expressions are assigned in order, a later one reading an earlier one', async () => {
  const data = {
    assignments: [
      { name: 'greeting', value: 'Hi {{caller}}' },
      { name: 'count', value: '=2 * 3' },
      { name: 'next_count', value: '=count + 1' },
      { name: 'label', value: '=count > 5 ? "many" : "few"' },
      { name: 'unset', value: '{{nobody}}' },
    ],
  };
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(planAround({ id: 'set', type: 'variable', data }, ['next']), { channel });
    expect(run.session.variables).toEqual({ greeting: 'Hi +5511999990000', count: 6, next_count: 7, label: 'many', unset: '' });
    expect(run.exitOf('set')).toBe('next');
  }
});

test('built-in variables cannot be assigned, nor can __proto__', () => {
  for (const name of ['caller', 'protocol', 'now', '__proto__']) {
    const result = validatePlanDocument(planAround({ id: 'set', type: 'variable', data: { assignments: [{ name, value: 'x' }] } }, ['next']));
    expect(result.ok, name).toBe(false);
  }
});
