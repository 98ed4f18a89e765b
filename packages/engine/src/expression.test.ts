import { describe, expect, test } from 'vitest';
import { ExpressionError, compileExpression } from './expression.ts';
import type { Value } from './values.ts';

const vars: Record<string, Value> = { digits: '2', name: 'Ana', count: 3, vip: true, empty: '', nothing: null };
const scope = (name: string): Value => (Object.hasOwn(vars, name) ? vars[name]! : null);
const run = (source: string) => compileExpression(source).evaluate(scope);

describe('expressions', () => {
  test.each<[string, Value]>([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 % 4', 2],
    ['7 / 2', 3.5],
    ['-count + 1', -2],
    ['digits + 1', 3],
    ["'Ana' + ' Silva'", 'Ana Silva'],
    ['digits & 1', '21'],
    ['name == "Ana"', true],
    ['digits == 2', true],
    ["digits == '02'", true],
    ['count >= 3 && vip', true],
    ['count > 3 or not vip', false],
    ['!empty', true],
    ['count < 10 ? "small" : "big"', 'small'],
    ['len(name)', 3],
    ['upper(name) & lower("X")', 'ANAx'],
    ['contains(name, "n")', true],
    ['starts_with(name, "A") and ends_with(name, "a")', true],
    ['substr("abcdef", 2, 3)', 'cde'],
    ['replace("a-b-c", "-", ".")', 'a.b.c'],
    ['round(2.345, 2)', 2.35],
    ['floor(2.9) + ceil(2.1) + abs(-1)', 6],
    ['max(1, digits, 7) - min(4, 3)', 4],
    ['coalesce(nothing, empty, name)', 'Ana'],
    ['number("4.5") * 2', 9],
    ['empty(nothing)', true],
    ['"a\\"b\\n"', 'a"b\n'],
  ])('%s = %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  test('what has no value is null, never an exception', () => {
    expect(run('1 / 0')).toBeNull();
    expect(run('name * 2')).toBeNull();
    expect(run('-name')).toBeNull();
    expect(run('unknown_variable')).toBeNull();
  });

  test('only the scope is reached: prototype keys and host names are plain, unset variables', () => {
    const seen: string[] = [];
    const spy = (name: string): Value => {
      seen.push(name);
      return null;
    };
    for (const source of ['__proto__', 'constructor', 'globalThis', 'process', 'this', 'prototype']) {
      expect(compileExpression(source).evaluate(spy)).toBeNull();
    }
    expect(seen).toEqual(['__proto__', 'constructor', 'globalThis', 'process', 'this', 'prototype']);
  });

  test.each([
    ['name.constructor', "unexpected '.'"],
    ['name["x"]', "unexpected '['"],
    ['process.exit()', "unexpected '.'"],
    ['eval("1")', "unknown function 'eval'"],
    ['constructor("return 1")', "unknown function 'constructor'"],
    ['len()', 'len() takes 1 arguments'],
    ['1 +', 'ends too early'],
    ['(1', "expected ')'"],
    ['"abc', 'unterminated text'],
    ['1 2', 'unexpected text after the expression'],
    ['a = 1', "unexpected '='"],
    ['', 'empty'],
    ['('.repeat(40) + '1' + ')'.repeat(40), 'nested too deeply'],
    ['x'.repeat(2001), 'longer than'],
  ])('%s is refused when compiled: %s', (source, message) => {
    expect(() => compileExpression(source)).toThrow(ExpressionError);
    expect(() => compileExpression(source)).toThrow(message);
  });

  test('lists the variables it reads', () => {
    expect(compileExpression('a + len(b) > c ? a : d').variables).toEqual(['a', 'b', 'c', 'd']);
  });

  test('replace builds no more than the text a value keeps: nested replaces of long text answer at once', () => {
    const long = 'a'.repeat(8192);
    // Four chains of 28 nested calls: 1,917 characters, within an expression's limits.
    const nested = Array(4).fill(`${'replace('.repeat(28)}v${", 'a', v)".repeat(28)}`).join(' & ');
    const startedAt = performance.now();
    expect(compileExpression(nested).evaluate(() => long)).toBe(long);
    // Building each replacement whole took 40 to 110 ms a call (5 to 13 s here); generous for a busy machine.
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    const cases: [string, string, string][] = [['a-b-c', '-', '..'], ['aaa', 'a', ''], ['abc', 'x', 'y'], ['x'.repeat(8000), 'x', 'yz'], ['ab'.repeat(4096), 'b', 'cc']];
    for (const [source, find, by] of cases) {
      const expected = source.split(find).join(by).slice(0, 8192);
      expect(compileExpression('replace(s, f, b)').evaluate((name) => ({ s: source, f: find, b: by })[name] ?? null), `${source.slice(0, 10)} ${find} ${by}`).toBe(expected);
    }
  });

  test('text it builds is capped, so a loop that doubles a string cannot run away', () => {
    let value: Value = 'x'.repeat(5000);
    const doubled = compileExpression('v & v');
    for (let i = 0; i < 5; i++) value = doubled.evaluate(() => value);
    expect((value as string).length).toBe(8192);
  });
});
