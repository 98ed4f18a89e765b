import { describe, expect, test } from 'vitest';
import { compilePlan } from '../compile.ts';
import { planDocument } from '../test-helpers.ts';
import { dataWithGoal, dataWithoutGoal } from './goal.ts';
import { validatePlanDocument } from './validate.ts';

describe('goals', () => {
  test('any block may carry a goal beside its own fields; it is kept, trimmed, and compiled onto the node', () => {
    const raw = planDocument(
      [
        { id: 'start', type: 'start' },
        { id: 'paid', type: 'play_message', data: { voice_text: 'Thanks', goal: '  paid ' } },
        { id: 'blank', type: 'hangup', data: { goal: '  ' } },
      ],
      [
        ['start', 'next', 'paid'],
        ['paid', 'next', 'blank'],
      ],
    );
    const result = validatePlanDocument(raw);
    expect(result.errors).toEqual([]);
    if (!result.ok) return;
    expect(result.document.nodes[1]!.data).toMatchObject({ voice_text: 'Thanks', goal: 'paid' });
    expect(result.document.nodes[2]!.data).not.toHaveProperty('goal');
    const plan = compilePlan(raw, { id: 1, tenant_id: 1, name: 'p', version: 1 });
    expect(plan.nodes.get('paid')!.goal).toBe('paid');
    expect(plan.nodes.get('blank')!.goal).toBeUndefined();
  });

  test('a goal that is not a text, or too long, is refused on the goal path', () => {
    const result = validatePlanDocument(
      planDocument([
        { id: 'start', type: 'start', data: { goal: 12 } },
        { id: 'h', type: 'hangup', data: { goal: 'x'.repeat(61) } },
      ]),
    );
    expect(result.errors.map(({ code, node_id, path }) => ({ code, node_id, path }))).toEqual([
      { code: 'invalid_field', node_id: 'start', path: 'goal' },
      { code: 'invalid_field', node_id: 'h', path: 'goal' },
    ]);
  });

  test('the editor sets and clears the goal without touching the block fields', () => {
    expect(dataWithGoal({ a: 1 }, 'paid')).toEqual({ a: 1, goal: 'paid' });
    expect(dataWithGoal({ a: 1, goal: 'paid' }, ' ')).toEqual({ a: 1 });
    expect(dataWithoutGoal({ a: 1, goal: 'x' })).toEqual({ a: 1 });
  });
});
