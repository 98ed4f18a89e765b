import { expect, test } from 'vitest';
import { validatePlanDocument } from '../plan/validate.ts';
import { planDocument, runPlan } from '../test-helpers.ts';

function planWith(rules: unknown[], match = 'all') {
  return planDocument(
    [
      { id: 'start', type: 'start' },
      { id: 'set', type: 'variable', data: { assignments: [{ name: 'digits', value: '2' }, { name: 'name', value: 'Ana Silva' }, { name: 'score', value: '=10' }] } },
      { id: 'check', type: 'condition', data: { match, rules } },
    ],
    [
      ['start', 'next', 'set'],
      ['set', 'next', 'check'],
    ],
  );
}

test.each([
  [{ left: '{{digits}}', op: 'eq', right: '2' }, 'true'],
  [{ left: '{{digits}}', op: 'eq', right: '02' }, 'true'],
  [{ left: '{{digits}}', op: 'neq', right: '3' }, 'true'],
  [{ left: '=score', op: 'gt', right: '9' }, 'true'],
  [{ left: '=score', op: 'gte', right: '10' }, 'true'],
  [{ left: '=score', op: 'lt', right: '9' }, 'false'],
  [{ left: '=score', op: 'lte', right: '=score' }, 'true'],
  [{ left: '{{name}}', op: 'contains', right: 'Silva' }, 'true'],
  [{ left: '{{name}}', op: 'starts_with', right: 'Silva' }, 'false'],
  [{ left: '{{name}}', op: 'matches', right: '^Ana\\s+\\w+$' }, 'true'],
  [{ left: '{{missing}}', op: 'empty', right: '' }, 'true'],
  [{ left: '{{name}}', op: 'not_empty', right: '' }, 'true'],
  [{ left: '=len(name) > 3 and digits == 2', op: 'eq', right: '=true' }, 'true'],
])('%j takes %s', async (rule, exit) => {
  for (const channel of ['voice', 'chat'] as const) expect((await runPlan(planWith([rule]), { channel })).exitOf('check')).toBe(exit);
});

test('all needs every rule, any needs one', async () => {
  const rules = [
    { left: '{{digits}}', op: 'eq', right: '2' },
    { left: '{{digits}}', op: 'eq', right: '3' },
  ];
  expect((await runPlan(planWith(rules, 'all'))).exitOf('check')).toBe('false');
  expect((await runPlan(planWith(rules, 'any'))).exitOf('check')).toBe('true');
});

test('matching time grows with the text, not as a power of it: a pattern every save check accepts answers at once on the longest text read', async () => {
  // A backtracking engine took 5.6 s on a 151-character message with this pattern (and far longer
  // on 2,000); linear matching takes about a millisecond. The bound is generous for a busy machine.
  const pattern = '^\\d*\\d*\\d*\\d*\\d*$';
  const plan = planWith([{ left: '{{text}}', op: 'matches', right: pattern }]);
  expect(validatePlanDocument(plan).errors).toEqual([]);
  for (const length of [151, 2_000]) {
    const text = `${'1'.repeat(length - 1)}x`;
    const startedAt = performance.now();
    const run = await runPlan(plan, { channel: 'chat', init: { variables: { text } } });
    expect(performance.now() - startedAt, `${length} characters`).toBeLessThan(1_000);
    expect(run.exitOf('check')).toBe('false');
  }
  expect((await runPlan(plan, { init: { variables: { text: '1'.repeat(2_000) } } })).exitOf('check')).toBe('true');
});

test('patterns run on RE2: JavaScript escapes and named groups are understood, and only the first 2,000 characters are read', async () => {
  const cases: [string, string, string][] = [
    ['^caf\\u00e9$', 'café', 'true'],
    ['^(?<area>\\d{2}) \\d+$', '11 5555', 'true'],
    ['\\bSilva\\b', 'Ana Silvana', 'false'],
    ['x$', `${'a'.repeat(2_000)}x`, 'false'],
  ];
  for (const [right, text, exit] of cases) {
    const plan = planWith([{ left: '{{text}}', op: 'matches', right }]);
    expect(validatePlanDocument(plan).errors, right).toEqual([]);
    expect((await runPlan(plan, { init: { variables: { text } } })).exitOf('check'), right).toBe(exit);
  }
});

test('what RE2 cannot run (backreferences, lookaround) is refused when saved, saying so', () => {
  for (const right of ['(a)\\1', 'a(?=b)', '(?<!a)b', '(?<=a)b']) {
    const [error, ...others] = validatePlanDocument(planWith([{ left: '{{name}}', op: 'matches', right }])).errors;
    expect(others, right).toEqual([]);
    expect([error?.code, error?.path], right).toEqual(['unsafe_pattern', 'rules.0.right']);
    expect(error?.message, right).toMatch(/RE2.*no backreferences or lookaround/);
  }
});

test('a pattern that could take too long to match, or is not a pattern, is refused when saved', () => {
  for (const right of ['(a+)+$', '([a-z]*)*', '(', 'x'.repeat(201)]) {
    const result = validatePlanDocument(planWith([{ left: '{{name}}', op: 'matches', right }]));
    expect(result.errors.map((error) => [error.code, error.node_id, error.path]), right).toEqual([['unsafe_pattern', 'check', 'rules.0.right']]);
  }
});

test('an expression that does not parse is refused when saved', () => {
  const result = validatePlanDocument(planWith([{ left: '=score >', op: 'eq', right: '1' }]));
  expect(result.errors.map((error) => [error.code, error.path])).toEqual([['invalid_expression', 'rules.0.left']]);
});
