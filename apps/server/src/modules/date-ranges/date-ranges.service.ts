import type { DateRange, DateRangeStatus, Holiday } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database, DateRangeTable } from '../../db/schema.ts';
import { holidayOnDate, holidaysAt } from '../holidays/holidays.service.ts';
import { evaluateSchedule, localMoment, type ScheduleDefinition, type ScheduleEvaluation } from './schedule.ts';

type DateRangeRow = Omit<DateRangeTable, 'id'> & { id: number };

/** Intervals and exceptions are stored as JSON text on both dialects; the API speaks arrays. */
export function presentDateRange(row: Record<string, unknown>): DateRange {
  const range = row as unknown as DateRangeRow;
  return {
    id: range.id,
    tenant_id: range.tenant_id,
    created_time: range.created_time,
    updated_time: range.updated_time,
    name: range.name,
    time_zone: range.time_zone,
    intervals: JSON.parse(range.intervals) as DateRange['intervals'],
    exceptions: JSON.parse(range.exceptions) as DateRange['exceptions'],
    country: range.country,
    state: range.state,
    city: range.city,
  };
}

export type ScheduledPlace = ScheduleDefinition & Pick<DateRange, 'country' | 'state' | 'city'>;

/** The holidays a range consults (holidaysAt its place): none for a range without a country. */
export async function rangeHolidays(db: Kysely<Database>, range: ScheduledPlace): Promise<Holiday[]> {
  return range.country === '' ? [] : holidaysAt(db, { country: range.country, state: range.state, city: range.city });
}

/** Where an instant falls in a range, its place's holidays (rangeHolidays) already read: the holiday on the instant's local date, then the pure evaluation. */
export function evaluateWithHolidays(range: ScheduleDefinition, holidays: readonly Holiday[], instant: Date): ScheduleEvaluation {
  const local = localMoment(range.time_zone, instant);
  return evaluateSchedule(range, instant, holidayOnDate(holidays, local.date), local);
}

/**
 * Where an instant falls in a range (saved or not): the holiday of the range's place on the
 * instant's local date (national, that state's, that city's), then the pure evaluation.
 * A range without a country consults no holidays.
 */
export async function scheduleEvaluation(db: Kysely<Database>, range: ScheduledPlace, instant: Date): Promise<ScheduleEvaluation> {
  return evaluateWithHolidays(range, await rangeHolidays(db, range), instant);
}

/** The evaluation as the API answers it (`GET /date-ranges/{id}/status`). */
export async function scheduleStatus(db: Kysely<Database>, range: ScheduledPlace, instant: Date): Promise<DateRangeStatus> {
  const evaluation = await scheduleEvaluation(db, range, instant);
  return {
    status: evaluation.status,
    at: instant.toISOString(),
    local_time: evaluation.local.dateTime.toISO({ suppressMilliseconds: true })!,
    time_zone: range.time_zone,
    day: evaluation.local.day,
    holiday: evaluation.holiday && { id: evaluation.holiday.id, name: evaluation.holiday.name, level: evaluation.holiday.level, date: evaluation.holiday.date },
    exception: evaluation.exception && { name: evaluation.exception.name, initial_date: evaluation.exception.initial_date, final_date: evaluation.exception.final_date },
  };
}
