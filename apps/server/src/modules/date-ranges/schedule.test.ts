import { type DateRangeException, type DateRangeInterval, type Holiday, presetIntervals } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { evaluateSchedule, localMoment, type ScheduleDefinition } from './schedule.ts';

const range = (time_zone: string, intervals: DateRangeInterval[], exceptions: DateRangeException[] = []): ScheduleDefinition => ({ time_zone, intervals, exceptions });
const statusAt = (schedule: ScheduleDefinition, iso: string, holiday?: Holiday) => evaluateSchedule(schedule, new Date(iso), holiday).status;

/** Real minutes the range is open between two instants, sampled every minute. */
function openMinutes(schedule: ScheduleDefinition, fromIso: string, toIso: string): number {
  let open = 0;
  for (let t = Date.parse(fromIso); t < Date.parse(toIso); t += 60_000) {
    if (evaluateSchedule(schedule, new Date(t)).status === 'in_hours') open += 1;
  }
  return open;
}

describe('the local wall clock', () => {
  test.each([
    // Sao Paulo's last DST (2018-11-04 to 2019-02-17): midnight skipped, then 23:00 repeated.
    ['America/Sao_Paulo', '2018-11-04T02:59:00Z', '2018-11-03T23:59:00.000-03:00', 'saturday'],
    ['America/Sao_Paulo', '2018-11-04T03:00:00Z', '2018-11-04T01:00:00.000-02:00', 'sunday'],
    ['America/Sao_Paulo', '2019-02-17T01:30:00Z', '2019-02-16T23:30:00.000-02:00', 'saturday'],
    ['America/Sao_Paulo', '2019-02-17T02:30:00Z', '2019-02-16T23:30:00.000-03:00', 'saturday'],
    // Brazil dropped DST in 2019: November 2019 stays at -03.
    ['America/Sao_Paulo', '2019-11-03T03:30:00Z', '2019-11-03T00:30:00.000-03:00', 'sunday'],
    ['America/New_York', '2026-03-08T06:59:00Z', '2026-03-08T01:59:00.000-05:00', 'sunday'],
    ['America/New_York', '2026-03-08T07:00:00Z', '2026-03-08T03:00:00.000-04:00', 'sunday'],
    ['America/New_York', '2026-11-01T05:30:00Z', '2026-11-01T01:30:00.000-04:00', 'sunday'],
    ['America/New_York', '2026-11-01T06:30:00Z', '2026-11-01T01:30:00.000-05:00', 'sunday'],
    ['Europe/Lisbon', '2026-03-29T00:59:00Z', '2026-03-29T00:59:00.000+00:00', 'sunday'],
    ['Europe/Lisbon', '2026-03-29T01:00:00Z', '2026-03-29T02:00:00.000+01:00', 'sunday'],
    ['Europe/Lisbon', '2026-10-25T00:30:00Z', '2026-10-25T01:30:00.000+01:00', 'sunday'],
    ['Europe/Lisbon', '2026-10-25T01:30:00Z', '2026-10-25T01:30:00.000+00:00', 'sunday'],
  ])('%s at %s is %s, a %s', (zone, instant, local, day) => {
    const moment = localMoment(zone, new Date(instant));
    expect(moment.dateTime.toISO()).toBe(local);
    expect(moment.day).toBe(day);
    expect(moment.date).toBe(local.slice(0, 10));
  });
});

describe('daylight-saving changes: intervals are wall-clock times in the range zone', () => {
  test('America/Sao_Paulo, 2018 spring-forward at midnight: the skipped hour is never open', () => {
    const skipped = range('America/Sao_Paulo', [{ day: 'sunday', start: '00:00', end: '01:00' }]);
    expect(openMinutes(skipped, '2018-11-04T00:00:00Z', '2018-11-05T03:00:00Z')).toBe(0);
    const early = range('America/Sao_Paulo', [{ day: 'sunday', start: '00:00', end: '02:00' }]);
    expect(statusAt(early, '2018-11-04T02:59:00Z')).toBe('out_of_hours'); // Saturday 23:59 -03
    expect(statusAt(early, '2018-11-04T03:00:00Z')).toBe('in_hours'); // Sunday 01:00 -02
    expect(statusAt(early, '2018-11-04T04:00:00Z')).toBe('out_of_hours'); // Sunday 02:00 -02
    expect(openMinutes(early, '2018-11-04T00:00:00Z', '2018-11-05T03:00:00Z')).toBe(60);
  });

  test('America/Sao_Paulo, 2018: a Saturday night interval across the skipped midnight lasts 3 real hours', () => {
    const night = range('America/Sao_Paulo', [{ day: 'saturday', start: '22:00', end: '02:00' }]);
    expect(statusAt(night, '2018-11-04T00:59:00Z')).toBe('out_of_hours'); // Saturday 21:59 -03
    expect(statusAt(night, '2018-11-04T01:00:00Z')).toBe('in_hours'); // Saturday 22:00 -03
    expect(statusAt(night, '2018-11-04T03:30:00Z')).toBe('in_hours'); // Sunday 01:30 -02
    expect(statusAt(night, '2018-11-04T04:00:00Z')).toBe('out_of_hours'); // Sunday 02:00 -02
    expect(openMinutes(night, '2018-11-03T12:00:00Z', '2018-11-04T12:00:00Z')).toBe(180);
  });

  test('America/Sao_Paulo, 2019 fall-back: the repeated 23:00 hour is open twice', () => {
    const late = range('America/Sao_Paulo', [{ day: 'saturday', start: '23:00', end: '24:00' }]);
    expect(statusAt(late, '2019-02-17T01:30:00Z')).toBe('in_hours'); // 23:30 -02
    expect(statusAt(late, '2019-02-17T02:30:00Z')).toBe('in_hours'); // 23:30 -03, again
    expect(statusAt(late, '2019-02-17T03:00:00Z')).toBe('out_of_hours'); // Sunday 00:00 -03
    expect(openMinutes(late, '2019-02-16T12:00:00Z', '2019-02-17T12:00:00Z')).toBe(120);
  });

  test('America/New_York spring-forward: 02:00-03:00 never opens; 01:00-04:00 lasts 2 real hours', () => {
    const gap = range('America/New_York', [{ day: 'sunday', start: '02:00', end: '03:00' }]);
    expect(openMinutes(gap, '2026-03-08T04:00:00Z', '2026-03-09T05:00:00Z')).toBe(0);
    const around = range('America/New_York', [{ day: 'sunday', start: '01:00', end: '04:00' }]);
    expect(statusAt(around, '2026-03-08T06:59:00Z')).toBe('in_hours'); // 01:59 EST
    expect(statusAt(around, '2026-03-08T07:00:00Z')).toBe('in_hours'); // 03:00 EDT
    expect(statusAt(around, '2026-03-08T08:00:00Z')).toBe('out_of_hours'); // 04:00 EDT
    expect(openMinutes(around, '2026-03-08T04:00:00Z', '2026-03-09T05:00:00Z')).toBe(120);
  });

  test('America/New_York fall-back: 01:00-02:00 is open in both of its occurrences', () => {
    const twice = range('America/New_York', [{ day: 'sunday', start: '01:00', end: '02:00' }]);
    expect(statusAt(twice, '2026-11-01T05:30:00Z')).toBe('in_hours'); // 01:30 EDT
    expect(statusAt(twice, '2026-11-01T06:30:00Z')).toBe('in_hours'); // 01:30 EST
    expect(statusAt(twice, '2026-11-01T07:00:00Z')).toBe('out_of_hours'); // 02:00 EST
    expect(openMinutes(twice, '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z')).toBe(120);
  });

  test('Europe/Lisbon: spring-forward skips 01:00-02:00, fall-back repeats it', () => {
    const hour = (day: 'sunday') => range('Europe/Lisbon', [{ day, start: '01:00', end: '02:00' }]);
    expect(openMinutes(hour('sunday'), '2026-03-28T23:00:00Z', '2026-03-29T23:00:00Z')).toBe(0);
    expect(openMinutes(hour('sunday'), '2026-10-24T23:00:00Z', '2026-10-25T23:00:00Z')).toBe(120);
    const office = range('Europe/Lisbon', presetIntervals('weekdays'));
    // Monday 08:00 is 08:00Z in winter and 07:00Z in summer.
    expect(statusAt(office, '2026-03-23T07:59:00Z')).toBe('out_of_hours');
    expect(statusAt(office, '2026-03-23T08:00:00Z')).toBe('in_hours');
    expect(statusAt(office, '2026-03-30T06:59:00Z')).toBe('out_of_hours');
    expect(statusAt(office, '2026-03-30T07:00:00Z')).toBe('in_hours');
  });

  test('24/7 is open through every change, a 23- and a 25-hour day included', () => {
    for (const [zone, from, to, minutes] of [
      ['America/New_York', '2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z', 23 * 60],
      ['America/New_York', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 25 * 60],
      ['Europe/Lisbon', '2026-10-24T23:00:00Z', '2026-10-26T00:00:00Z', 25 * 60],
      ['America/Sao_Paulo', '2018-11-04T03:00:00Z', '2018-11-05T02:00:00Z', 23 * 60],
    ] as const) {
      expect(openMinutes(range(zone, presetIntervals('always')), from, to), zone).toBe(minutes);
    }
  });
});

describe('the same instant in several zones', () => {
  test('Monday 15 June 2026 11:30 UTC: lunch in Lisbon, morning in Sao Paulo, before opening in New York', () => {
    const instant = '2026-06-15T11:30:00Z';
    expect(statusAt(range('Europe/Lisbon', presetIntervals('weekdays_with_break')), instant)).toBe('out_of_hours'); // 12:30
    expect(statusAt(range('Europe/Lisbon', presetIntervals('weekdays')), instant)).toBe('in_hours');
    expect(statusAt(range('America/Sao_Paulo', presetIntervals('weekdays_with_break')), instant)).toBe('in_hours'); // 08:30
    expect(statusAt(range('America/New_York', presetIntervals('weekdays')), instant)).toBe('out_of_hours'); // 07:30
    expect(statusAt(range('Asia/Tokyo', presetIntervals('weekdays')), instant)).toBe('out_of_hours'); // 20:30
  });

  test('the weekday is the local one: Friday evening in New York is Saturday in UTC', () => {
    const fridays = range('America/New_York', [{ day: 'friday', start: '18:00', end: '23:00' }]);
    expect(statusAt(fridays, '2026-06-13T01:00:00Z')).toBe('in_hours'); // Friday 21:00 EDT
    expect(statusAt(range('UTC', [{ day: 'friday', start: '18:00', end: '23:00' }]), '2026-06-13T01:00:00Z')).toBe('out_of_hours');
  });
});

describe('intervals', () => {
  const night = range('UTC', [{ day: 'friday', start: '22:00', end: '02:00' }]);

  test('an end earlier than the start crosses midnight into the next day', () => {
    expect(statusAt(night, '2026-06-12T21:59:59Z')).toBe('out_of_hours'); // Friday
    expect(statusAt(night, '2026-06-12T22:00:00Z')).toBe('in_hours');
    expect(statusAt(night, '2026-06-12T23:59:59Z')).toBe('in_hours');
    expect(statusAt(night, '2026-06-13T00:00:00Z')).toBe('in_hours'); // Saturday
    expect(statusAt(night, '2026-06-13T01:59:59Z')).toBe('in_hours');
    expect(statusAt(night, '2026-06-13T02:00:00Z')).toBe('out_of_hours');
    // The tail belongs to the day after Friday only.
    expect(statusAt(night, '2026-06-12T01:00:00Z')).toBe('out_of_hours'); // Friday 01:00
    expect(statusAt(night, '2026-06-14T01:00:00Z')).toBe('out_of_hours'); // Sunday 01:00
  });

  test("Sunday's night runs into Monday", () => {
    const sunday = range('America/Sao_Paulo', [{ day: 'sunday', start: '23:00', end: '01:00' }]);
    expect(statusAt(sunday, '2026-06-15T03:30:00Z')).toBe('in_hours'); // Monday 00:30 -03
    expect(statusAt(sunday, '2026-06-15T04:00:00Z')).toBe('out_of_hours'); // Monday 01:00
  });

  test('several intervals a day; the start is included, the end is not; 24:00 ends the day', () => {
    const split = range('UTC', [
      { day: 'monday', start: '13:00', end: '18:00' },
      { day: 'monday', start: '08:00', end: '12:00' },
      { day: 'tuesday', start: '20:00', end: '24:00' },
    ]);
    expect(statusAt(split, '2026-06-15T07:59:59Z')).toBe('out_of_hours');
    expect(statusAt(split, '2026-06-15T08:00:00Z')).toBe('in_hours');
    expect(statusAt(split, '2026-06-15T11:59:59.999Z')).toBe('in_hours');
    expect(statusAt(split, '2026-06-15T12:00:00Z')).toBe('out_of_hours');
    expect(statusAt(split, '2026-06-15T12:59:59Z')).toBe('out_of_hours');
    expect(statusAt(split, '2026-06-15T13:00:00Z')).toBe('in_hours');
    expect(statusAt(split, '2026-06-15T18:00:00Z')).toBe('out_of_hours');
    expect(statusAt(split, '2026-06-16T23:59:59Z')).toBe('in_hours');
    expect(statusAt(split, '2026-06-17T00:00:00Z')).toBe('out_of_hours'); // 24:00 does not run into Wednesday
  });

  test('no intervals: always out of hours', () => {
    expect(statusAt(range('UTC', []), '2026-06-15T10:00:00Z')).toBe('out_of_hours');
  });
});

describe('exceptions and holidays', () => {
  const christmas: DateRangeException = { name: 'Christmas', initial_date: '2026-12-24', final_date: '2026-12-26' };
  const always = range('America/Sao_Paulo', presetIntervals('always'), [christmas]);
  const holiday: Holiday = {
    id: 1,
    created_time: '2026-01-01T00:00:00.000Z',
    updated_time: '2026-01-01T00:00:00.000Z',
    name: 'Tiradentes',
    date: '2026-04-21',
    recurring: false,
    level: 'national',
    country: 'BR',
    state: '',
    city: '',
  };

  test('an exception closes its local dates, both ends included', () => {
    expect(statusAt(always, '2026-12-24T02:59:00Z')).toBe('in_hours'); // 23rd, 23:59 -03
    expect(statusAt(always, '2026-12-24T03:00:00Z')).toBe('out_of_hours'); // 24th, 00:00
    const inside = evaluateSchedule(always, new Date('2026-12-27T02:59:00Z')); // 26th, 23:59
    expect(inside).toMatchObject({ status: 'out_of_hours', exception: christmas, holiday: null });
    expect(statusAt(always, '2026-12-27T03:00:00Z')).toBe('in_hours'); // 27th
  });

  test('a holiday wins over in hours, out of hours and exceptions', () => {
    expect(evaluateSchedule(always, new Date('2026-04-21T15:00:00Z'), holiday)).toMatchObject({ status: 'holiday', holiday });
    expect(statusAt(range('America/Sao_Paulo', []), '2026-04-21T15:00:00Z', holiday)).toBe('holiday');
    expect(evaluateSchedule(always, new Date('2026-12-25T15:00:00Z'), holiday)).toMatchObject({ status: 'holiday', exception: christmas });
  });
});
