import { describe, expect, test } from 'vitest';
import { chartPeriod, dayText, periodOf } from './period.ts';

const days = (period: { from: Date; to: Date } | undefined) => period && [dayText(period.from), dayText(period.to)];

describe('dashboard periods', () => {
  const now = new Date(2026, 2, 31, 15, 42);

  test('day is today, week and month the last 7 and 30 days with today, all ending at the next midnight', () => {
    expect(days(periodOf('day', now))).toEqual(['2026-03-31', '2026-04-01']);
    expect(days(periodOf('week', now))).toEqual(['2026-03-25', '2026-04-01']);
    expect(days(periodOf('month', now))).toEqual(['2026-03-02', '2026-04-01']);
    expect(periodOf('day', now)!.from.getHours()).toBe(0);
  });

  test('a custom range takes both its days, in either order, and nothing until it has both', () => {
    expect(days(periodOf('custom', now, ['2026-02-27', '2026-03-01']))).toEqual(['2026-02-27', '2026-03-02']);
    expect(days(periodOf('custom', now, ['2026-03-01', '2026-02-27']))).toEqual(['2026-02-27', '2026-03-02']);
    expect(periodOf('custom', now, ['2026-03-01', null])).toBeUndefined();
  });

  test('the chart shows at least the week up to the period’s last day', () => {
    expect(days(chartPeriod(periodOf('day', now)!))).toEqual(['2026-03-25', '2026-04-01']);
    expect(days(chartPeriod(periodOf('month', now)!))).toEqual(['2026-03-02', '2026-04-01']);
  });
});
