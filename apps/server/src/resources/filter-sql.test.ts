import type { Condition } from '@voxplan/contracts';
import { describe, expect, it } from 'vitest';
import { conditionShape, fillShape } from './filter-sql.ts';

const and = (...items: Condition[]): Condition => ({ kind: 'and', items });

describe('conditionShape', () => {
  it('gives conditions that differ only in their values one key, and takes the values out in order', () => {
    const first = conditionShape(
      and({ kind: 'between', field: 'name', low: 'a', high: 'c' }, { kind: 'in', field: 'id', negate: true, values: [1, 2] }, { kind: 'compare', field: 'kind', op: 'eq', value: 'voice' }),
    );
    const second = conditionShape(
      and({ kind: 'between', field: 'name', low: 'm', high: 'p' }, { kind: 'in', field: 'id', negate: true, values: [7, 9] }, { kind: 'compare', field: 'kind', op: 'eq', value: 'chat' }),
    );
    expect(second.key).toBe(first.key);
    expect(first.values).toEqual(['a', 'c', 1, 2, 'voice']);
    expect(second.values).toEqual(['m', 'p', 7, 9, 'chat']);
  });

  it('keeps in the key what the query is compiled from: fields, operators, list lengths, nulls, booleans and like patterns', () => {
    const keyOf = (condition: Condition) => conditionShape(condition).key;
    const compare = (value: string | number | boolean | null, op: 'eq' | 'like' = 'eq', field = 'name'): Condition => ({ kind: 'compare', field, op, value });
    const keys = [
      keyOf(compare('a')),
      keyOf(compare('a', 'eq', 'uri')),
      keyOf({ kind: 'compare', field: 'name', op: 'neq', value: 'a' }),
      keyOf(compare(null)),
      keyOf(compare(true)),
      keyOf(compare(false)),
      keyOf(compare('%a%', 'like')),
      keyOf(compare('%b%', 'like')),
      keyOf({ kind: 'in', field: 'id', negate: false, values: [1] }),
      keyOf({ kind: 'in', field: 'id', negate: false, values: [1, 2] }),
      keyOf({ kind: 'in', field: 'id', negate: true, values: [1, 2] }),
      keyOf({ kind: 'or', items: [compare('a'), compare('b')] }),
      keyOf(and(compare('a'), compare('b'))),
      keyOf(and(compare('a'), { kind: 'or', items: [compare('b'), compare('c')] })),
      keyOf(and({ kind: 'or', items: [compare('a'), compare('b')] }, compare('c'))),
      keyOf(and(compare('a'), compare('b'), compare('c'))),
      keyOf({ kind: 'between', field: 'name', low: 'a', high: 'b' }),
      keyOf({ kind: 'between', field: 'name', low: true, high: 'b' }),
      keyOf(compare('?', 'like')),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(conditionShape(compare(1)).key).toBe(keyOf(compare('a')));
  });

  it('fills the values back in where they were', () => {
    const condition = and(
      { kind: 'or', items: [{ kind: 'compare', field: 'uri', op: 'like', value: '%x%' }, { kind: 'compare', field: 'description', op: 'eq', value: null }] },
      { kind: 'between', field: 'created_time', low: '2024-01-01T00:00:00.000Z', high: '2024-02-01T00:00:00.000Z' },
      { kind: 'compare', field: 'is_test', op: 'eq', value: false },
    );
    const { template, values } = conditionShape(condition);
    expect(fillShape(template, (index) => values[index])).toEqual(condition);
    expect(conditionShape(undefined)).toEqual({ key: '', template: undefined, values: [] });
  });
});
