import { describe, expect, test } from 'vitest';
import { formatBytes, formatDate, formatDuration, formatNumber } from './format.ts';

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

describe('numbers and sizes in the interface language', () => {
  test('Portuguese groups thousands with dots and decimals with a comma', () => {
    expect(formatNumber(12345.5, 'pt')).toBe('12.345,5');
    expect(formatNumber(12345.5, 'en')).toBe('12,345.5');
    expect(formatNumber(0.257, 'pt', { style: 'percent', maximumFractionDigits: 1 })).toBe('25,7%');
    expect(formatNumber(null, 'en')).toBe('—');
  });

  test('sizes in the largest unit of 1,024 steps', () => {
    expect(formatBytes(512, 'en')).toBe('512 byte');
    expect(formatBytes(1536, 'en')).toBe('1.5 kB');
    expect(formatBytes(5 * 1024 ** 3 + 1024 ** 3 / 4, 'pt')).toBe('5,3 GB');
    expect(formatBytes(null, 'pt')).toBe('—');
  });
});

describe('formatDate', () => {
  test('a day written out in the interface language; nothing for no date', () => {
    expect(formatDate('2027-03-05T12:00:00Z', 'pt')).toBe('5 de março de 2027');
    expect(formatDate('2027-03-05T12:00:00Z', 'en')).toBe('March 5, 2027');
    expect(formatDate(null, 'en')).toBeNull();
  });
});
