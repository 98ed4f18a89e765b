import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('answers what toISOString answers, for the same instant asked again and for the next one', () => {
    const instants = [Date.UTC(2026, 10, 29, 15, 40, 0, 5), Date.UTC(2026, 10, 29, 15, 40, 0, 5), Date.UTC(2026, 10, 29, 15, 40, 0, 6), -1, 0, Date.UTC(12000, 0, 1)];
    for (const time of instants) expect(isoTime(new Date(time))).toBe(new Date(time).toISOString());
  });

  it('refuses an invalid date as toISOString does, every time', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
