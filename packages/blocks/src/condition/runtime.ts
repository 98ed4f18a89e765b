import { compareValues, toText, type Turn, type Value } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { compileValue } from '../core/value.ts';
import { type ConditionOperator, conditionBlock } from './definition.ts';
import { compilePattern } from './pattern.ts';

/** Text `matches` reads at most: matching is linear in it (RE2), this bounds the constant. */
const maxSubjectLength = 2_000;

type Test = (left: Value, right: Value) => boolean;

const tests: Readonly<Record<Exclude<ConditionOperator, 'matches'>, Test>> = {
  eq: (l, r) => compareValues(l, r) === 0,
  neq: (l, r) => compareValues(l, r) !== 0,
  gt: (l, r) => compareValues(l, r) > 0,
  gte: (l, r) => compareValues(l, r) >= 0,
  lt: (l, r) => compareValues(l, r) < 0,
  lte: (l, r) => compareValues(l, r) <= 0,
  contains: (l, r) => toText(l).includes(toText(r)),
  starts_with: (l, r) => toText(l).startsWith(toText(r)),
  empty: (l) => toText(l).trim() === '',
  not_empty: (l) => toText(l).trim() !== '',
};

interface CompiledRule {
  left: (turn: Turn) => Value;
  right: (turn: Turn) => Value;
  test: Test;
}

export const conditionRuntime = defineRuntime(conditionBlock, {
  compile: (data) => ({
    isAll: data.match === 'all',
    rules: data.rules.map((rule): CompiledRule => {
      if (rule.op === 'matches') {
        const pattern = compilePattern(rule.right);
        return { left: compileValue(rule.left), right: () => null, test: (l) => pattern.test(toText(l).slice(0, maxSubjectLength)) };
      }
      return { left: compileValue(rule.left), right: compileValue(rule.right), test: tests[rule.op] };
    }),
  }),
  enter(turn, node) {
    const { isAll, rules } = node.config;
    // All: the first rule that fails decides; any: the first that holds does. A loop rather than
    // every/some with a closure made on each entry.
    for (const rule of rules) {
      if (rule.test(rule.left(turn), rule.right(turn)) !== isAll) return { exit: isAll ? 'false' : 'true' };
    }
    return { exit: isAll ? 'true' : 'false' };
  },
});
