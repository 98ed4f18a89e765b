import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import {
  checkExceptionOrder,
  dateRangeCreateSchema,
  isValidTimeZone,
  presetIntervals,
  presetOf,
  timeZoneSchema,
  weekSegments,
} from './date-range.ts';

const issuesOf = (value: unknown, schema: z.ZodType = dateRangeCreateSchema) => {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};
const base = { name: 'Office', time_zone: 'America/Sao_Paulo' };

describe('time zones', () => {
  test.each(['America/Sao_Paulo', 'Europe/Lisbon', 'America/New_York', 'UTC', 'Etc/GMT+3', 'Asia/Kolkata'])('%s is a zone', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });
  test.each(['', 'Nowhere/Atlantis', '+03:00', 'GMT-3 ', 'America/Sao Paulo', 'local', `America/${'x'.repeat(80)}`])('%j is not', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });
  test('the spelling is the database one', () => {
    expect(timeZoneSchema.parse('america/sao_paulo')).toBe('America/Sao_Paulo');
    expect(timeZoneSchema.parse(' Europe/Lisbon ')).toBe('Europe/Lisbon');
    expect(timeZoneSchema.parse('utc')).toBe('UTC');
    // Aliases stay as chosen, whatever name the runtime's own list prefers.
    expect(timeZoneSchema.parse('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(timeZoneSchema.parse('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
  });
});

describe('intervals', () => {
  test('times are HH:MM; an end may be 24:00; an end equal to the start is empty', () => {
    expect(issuesOf({ ...base, intervals: [{ day: 'monday', start: '08:00', end: '24:00' }] })).toEqual([]);
    expect(issuesOf({ ...base, intervals: [{ day: 'friday', start: '22:00', end: '02:00' }] })).toEqual([]);
    expect(issuesOf({ ...base, intervals: [{ day: 'monday', start: '24:00', end: '10:00' }] })).toEqual([{ path: 'intervals.0.start', message: 'invalidTime' }]);
    expect(issuesOf({ ...base, intervals: [{ day: 'monday', start: '8:00', end: '10:60' }] })).toEqual([
      { path: 'intervals.0.start', message: 'invalidTime' },
      { path: 'intervals.0.end', message: 'invalidTime' },
    ]);
    expect(issuesOf({ ...base, intervals: [{ day: 'monday', start: '09:30', end: '09:30' }] })).toEqual([{ path: 'intervals.0.end', message: 'emptyInterval' }]);
    expect(issuesOf({ ...base, intervals: [{ day: 'monday', start: '00:00', end: '00:00' }] })).toEqual([{ path: 'intervals.0.end', message: 'emptyInterval' }]);
    expect(issuesOf({ ...base, intervals: [{ day: 'funday', start: '08:00', end: '09:00' }] }).map((issue) => issue.path)).toEqual(['intervals.0.day']);
  });

  test('crossing midnight splits at it; Sunday runs into Monday; touching and overlapping stretches join', () => {
    const segments = weekSegments([
      { day: 'friday', start: '22:00', end: '02:00' },
      { day: 'sunday', start: '23:00', end: '01:30' },
      { day: 'monday', start: '08:00', end: '12:00' },
      { day: 'monday', start: '11:00', end: '13:00' },
      { day: 'monday', start: '13:00', end: '14:00' },
      { day: 'tuesday', start: '20:00', end: '00:00' },
    ]);
    expect(segments.friday).toEqual([{ start: 22 * 60, end: 24 * 60 }]);
    expect(segments.saturday).toEqual([{ start: 0, end: 2 * 60 }]);
    expect(segments.sunday).toEqual([{ start: 23 * 60, end: 24 * 60 }]);
    expect(segments.monday).toEqual([
      { start: 0, end: 90 },
      { start: 8 * 60, end: 14 * 60 },
    ]);
    expect(segments.tuesday).toEqual([{ start: 20 * 60, end: 24 * 60 }]);
    expect(segments.wednesday).toEqual([]);
  });
});

describe('exceptions and place', () => {
  test('dates are real calendar dates; the name is required', () => {
    expect(issuesOf({ ...base, exceptions: [{ name: 'Carnival', initial_date: '2026-02-16', final_date: '2026-02-17' }] })).toEqual([]);
    expect(issuesOf({ ...base, exceptions: [{ name: ' ', initial_date: '2026-02-30', final_date: '' }] }).map((issue) => issue.path)).toEqual([
      'exceptions.0.name',
      'exceptions.0.initial_date',
      'exceptions.0.final_date',
    ]);
  });

  test('an initial date after the final one is named on the final date, for forms', () => {
    const schema = dateRangeCreateSchema.superRefine(checkExceptionOrder);
    const exceptions = [
      { name: 'Fine', initial_date: '2026-02-16', final_date: '2026-02-16' },
      { name: 'Reversed', initial_date: '2026-03-02', final_date: '2026-03-01' },
    ];
    expect(issuesOf({ ...base, exceptions }, schema)).toEqual([{ path: 'exceptions.1.final_date', message: 'initial_date_after_final_date' }]);
  });

  test('a city needs its state, a state its country; the country is an uppercase ISO code', () => {
    expect(issuesOf({ ...base, country: 'BR', state: 'SP', city: 'Campinas' })).toEqual([]);
    expect(issuesOf({ ...base, city: 'Campinas' })).toEqual([
      { path: 'state', message: 'required' },
      { path: 'country', message: 'required' },
    ]);
    expect(issuesOf({ ...base, country: 'BR', city: 'Campinas' })).toEqual([{ path: 'state', message: 'required' }]);
    expect(issuesOf({ ...base, country: 'br' }).map((issue) => issue.path)).toEqual(['country']);
    expect(dateRangeCreateSchema.parse(base)).toMatchObject({ intervals: [], exceptions: [], country: '', state: '', city: '' });
  });
});

describe('presets', () => {
  test('24/7, Monday to Friday, Monday to Friday with a lunch break', () => {
    expect(presetIntervals('always')).toHaveLength(7);
    expect(presetIntervals('weekdays')).toContainEqual({ day: 'friday', start: '08:00', end: '18:00' });
    expect(presetIntervals('weekdays').some((interval) => interval.day === 'saturday')).toBe(false);
    expect(presetIntervals('weekdays_with_break').filter((interval) => interval.day === 'wednesday')).toEqual([
      { day: 'wednesday', start: '08:00', end: '12:00' },
      { day: 'wednesday', start: '13:00', end: '18:00' },
    ]);
    for (const preset of ['always', 'weekdays', 'weekdays_with_break'] as const) {
      expect(issuesOf({ ...base, intervals: presetIntervals(preset) })).toEqual([]);
    }
  });

  test('the preset the intervals are, in any order', () => {
    expect(presetOf([...presetIntervals('weekdays_with_break')].reverse())).toBe('weekdays_with_break');
    expect(presetOf(presetIntervals('always'))).toBe('always');
    expect(presetOf([...presetIntervals('weekdays'), { day: 'saturday', start: '08:00', end: '12:00' }])).toBeUndefined();
    expect(presetOf([])).toBeUndefined();
  });
});
