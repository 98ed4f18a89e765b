import { describe, expect, test } from 'vitest';
import { type FieldMap, FilterError, parseFilter, parseOrder, parseWhere } from './filter.ts';

const fields: FieldMap = { id: 'integer', name: 'string', score: 'number', active: 'boolean', created_time: 'date' };

describe('parseWhere', () => {
  test('the shorthand is equality, and several fields are all required', () => {
    expect(parseWhere({ name: 'a', id: 2 }, fields)).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', field: 'name', op: 'eq', value: 'a' },
        { kind: 'compare', field: 'id', op: 'eq', value: 2 },
      ],
    });
  });

  test('values are coerced to the field type, dates to ISO text', () => {
    expect(parseWhere({ id: { gt: '5' } }, fields)).toEqual({ kind: 'compare', field: 'id', op: 'gt', value: 5 });
    expect(parseWhere({ created_time: { gte: '2026-01-02' } }, fields)).toEqual({
      kind: 'compare',
      field: 'created_time',
      op: 'gte',
      value: '2026-01-02T00:00:00.000Z',
    });
    expect(parseWhere({ active: 'true' }, fields)).toMatchObject({ value: true });
  });

  test.each([
    [{ nope: 1 }, "unknown field 'nope'"],
    [{ name: { regexp: 'x' } }, "unknown operator 'regexp'"],
    [{ id: { like: '1%' } }, 'text fields only'],
    [{ id: 'abc' }, 'expects a integer'],
    [{ id: { between: [1] } }, 'two values'],
    [{ or: [] }, 'non-empty list'],
    [{ active: { gt: true } }, 'boolean'],
    [{ id: { inq: Array.from({ length: 1001 }, (_, i) => i) } }, 'at most 1000'],
    ['name', 'must be an object'],
  ])('%j is refused: %s', (where, message) => {
    expect(() => parseWhere(where, fields)).toThrow(FilterError);
    expect(() => parseWhere(where, fields)).toThrow(message);
  });

  test('nesting deeper than 12 levels is refused, 12 is fine', () => {
    const nest = (levels: number): unknown => (levels === 1 ? { id: 1 } : { and: [nest(levels - 1)] });
    expect(() => parseWhere(nest(12), fields)).not.toThrow();
    expect(() => parseWhere(nest(13), fields)).toThrow('at most 12 levels');
  });

  test('the error names the path of the mistake', () => {
    try {
      parseWhere({ or: [{ id: 1 }, { name: { nope: 1 } }] }, fields);
      expect.unreachable();
    } catch (error) {
      expect((error as FilterError).path).toBe('where.or[1].name.nope');
    }
  });
});

describe('parseFilter and parseOrder', () => {
  test('order takes a list or a single term, ASC by default', () => {
    expect(parseOrder(['name DESC', 'id'], fields)).toEqual([
      { field: 'name', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ]);
    expect(parseOrder('score asc', fields)).toEqual([{ field: 'score', direction: 'asc' }]);
    expect(() => parseOrder(['name SIDEWAYS'], fields)).toThrow(FilterError);
    expect(() => parseOrder(['name; drop table x'], fields)).toThrow(FilterError);
  });

  test('limit is at most 1000 and unknown keys are refused', () => {
    expect(parseFilter({ limit: 1000, skip: 5 }, fields)).toMatchObject({ limit: 1000, skip: 5 });
    expect(() => parseFilter({ limit: 1001 }, fields)).toThrow('limit');
    expect(() => parseFilter({ limit: -1 }, fields)).toThrow('limit');
    expect(() => parseFilter({ wher: {} }, fields)).toThrow("unknown filter key 'wher'");
  });
});
