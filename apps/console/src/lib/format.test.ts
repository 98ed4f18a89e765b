import { describe, expect, test } from 'vitest';
import { formatDuration } from './format.ts';

describe('formatDuration', () => {
  test('minutes and seconds, with hours from an hour up, in whole seconds as players count them', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(7_400)).toBe('0:07');
    expect(formatDuration(7_999)).toBe('0:07');
    expect(formatDuration(62_000)).toBe('1:02');
    expect(formatDuration(3_723_000)).toBe('1:02:03');
  });

  test('an unknown length is a dash', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(undefined)).toBe('—');
    expect(formatDuration(Number.NaN)).toBe('—');
  });
});
