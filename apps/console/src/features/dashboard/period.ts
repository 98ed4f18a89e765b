/**
 * The dashboard's periods, in the browser's own time zone (the one sent as `tz`): its days start at
 * the browser's midnight, which plain local `Date` arithmetic gives, summer time included.
 */

export type PeriodKind = 'day' | 'week' | 'month' | 'custom';
export const periodKinds: readonly PeriodKind[] = ['day', 'week', 'month', 'custom'];

/** A calendar day as `YYYY-MM-DD`, the form `/stats/daily` answers and the range input gives. */
export type DayText = string;

export interface Period {
  /** Inclusive. */
  from: Date;
  /** Exclusive: the midnight after the last day. */
  to: Date;
}

/** The browser's IANA time zone, sent as `tz` so that days are the user's days. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function midnight(date: Date, addDays = 0): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + addDays);
}

/** `YYYY-MM-DD` of a local date. */
export function dayText(date: Date): DayText {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** Local midnight of a `YYYY-MM-DD` day. */
export function dayStart(day: DayText): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date);
}

/**
 * The period a choice stands for at `now`: today; the last 7 or 30 days, today included; or the
 * custom days, both ends included. An incomplete custom range is undefined (nothing is asked).
 */
export function periodOf(kind: PeriodKind, now: Date, custom?: readonly [DayText | null, DayText | null]): Period | undefined {
  const tomorrow = midnight(now, 1);
  switch (kind) {
    case 'day':
      return { from: midnight(now), to: tomorrow };
    case 'week':
      return { from: midnight(now, -6), to: tomorrow };
    case 'month':
      return { from: midnight(now, -29), to: tomorrow };
    case 'custom': {
      const [first, last] = custom ?? [null, null];
      if (!first || !last) return undefined;
      const [start, end] = first <= last ? [first, last] : [last, first];
      return { from: dayStart(start), to: midnight(dayStart(end), 1) };
    }
  }
}

/**
 * The days the calls-per-day chart covers: the period's, but at least the week up to its last day,
 * so that the default period (one day) still shows a trend.
 */
export function chartPeriod(period: Period): Period {
  const weekBefore = midnight(period.to, -7);
  return { from: period.from < weekBefore ? period.from : weekBefore, to: period.to };
}
