import { expect, test } from 'vitest';
import { JsonPathError, parseJsonPath, readJsonPath } from './json-path.ts';

const answer = { data: { items: [{ name: 'first' }, { name: 'second' }], 'a key': 1, status: 'ok' } };

test.each([
  ['data.status', 'ok'],
  ['$.data.status', 'ok'],
  ['data.items[1].name', 'second'],
  ['data.items.0.name', 'first'],
  ['data["a key"]', 1],
  ["data['a key']", 1],
  ['data.items[5].name', undefined],
  ['data.missing.deeper', undefined],
  ['data.__proto__', undefined],
  ['data.constructor', undefined],
  ['data.items.length', undefined],
])('%s reads %j', (path, expected) => {
  expect(readJsonPath(answer, parseJsonPath(path))).toEqual(expected);
});

test('the root is the whole answer', () => {
  expect(readJsonPath(answer, parseJsonPath('$'))).toBe(answer);
});

test.each(['', 'data..x', 'data[x]', 'data.items[0]name', 'data["open'])('%j is refused', (path) => {
  expect(() => parseJsonPath(path)).toThrow(JsonPathError);
});
