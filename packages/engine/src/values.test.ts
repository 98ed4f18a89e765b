import { expect, test } from 'vitest';
import { compareValues, toNumber } from './values.ts';

test('numeric text is read as a number, anything else is not', () => {
  const numbers: [string, number][] = [['2', 2], [' 02 ', 2], ['-1.5', -1.5], ['+3.', 3], ['.5', 0.5], ['1e3', 1000], ['2.5E-1', 0.25]];
  for (const [text, number] of numbers) expect(toNumber(text), text).toBe(number);
  for (const text of ['', ' ', '.', '1.2.3', '1e', 'e3', '12a', '0x10', '1 2', '--1']) expect(toNumber(text), text).toBeUndefined();
});

test('reading a long text that is almost a number takes time linear in it, on every comparison', () => {
  // A chat message of 8,000 digits and a letter: a backtracking pattern took 150 ms a reading.
  const almost = `${'1'.repeat(8_000)}x`;
  const startedAt = performance.now();
  for (let i = 0; i < 20; i++) expect(compareValues(almost, '5')).toBe(-1);
  // Generous for a busy machine: twenty readings used to take 3 s.
  expect(performance.now() - startedAt).toBeLessThan(500);
});
