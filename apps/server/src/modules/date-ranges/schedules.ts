import { maxId } from '@voxplan/contracts';
import type { MaybePromise } from '@voxplan/engine';
import type { ScheduleStatus, Schedules } from '@voxplan/engine/ports';
import type { AppContext } from '../../context.ts';
import type { DateRange } from '@voxplan/contracts';
import { evaluateWithHolidays, presentDateRange, scheduleEvaluation } from './date-ranges.service.ts';

/** The engine's Schedules port: the date_range block's question, answered from the database. */
export function createSchedules(ctx: Pick<AppContext, 'db' | 'readCache'>): Schedules {
  // The read cache answers the same frozen row until the range is written: its parsed form is kept with it.
  const presented = new WeakMap<object, DateRange>();
  const rangeOf = (row: Record<string, unknown>): DateRange => {
    let range = presented.get(row);
    if (!range) presented.set(row, (range = presentDateRange(row)));
    return range;
  };
  const statusOf = (row: Record<string, unknown> | undefined, instant: Date, holiday: boolean | undefined): MaybePromise<ScheduleStatus | undefined> => {
    if (!row) return undefined;
    // A test run as if on a holiday: whatever the range's place, the tenant's holidays are not asked.
    if (holiday) return 'holiday';
    const range = rangeOf(row);
    // A range without a place has no holidays to read: answered at once (EnginePorts).
    if (range.country === '') return evaluateWithHolidays(range, [], instant).status;
    return scheduleEvaluation(ctx.db, range, instant).then((evaluation) => evaluation.status);
  };
  return {
    // Not async: a range kept in the read cache, without holidays, is answered without a promise.
    statusAt(tenantId, dateRangeId, instant, options) {
      // The id comes from a plan document: one that cannot be a row id names no range (and
      // PostgreSQL would refuse it as a parameter rather than find nothing).
      if (![tenantId, dateRangeId].every((id) => Number.isInteger(id) && id > 0 && id <= maxId)) return undefined;
      // Asked on every call that passes the block: read again only after date_ranges was written.
      const row = ctx.readCache.readMaybeNow(`date-range\u0000${tenantId}\u0000${dateRangeId}`, ['date_ranges'], () =>
        ctx.db.selectFrom('date_ranges').selectAll().where('id', '=', dateRangeId).where('tenant_id', '=', tenantId).executeTakeFirst(),
      );
      const holiday = options?.holiday;
      return row instanceof Promise ? row.then((read) => statusOf(read, instant, holiday)) : statusOf(row, instant, holiday);
    },
  };
}
