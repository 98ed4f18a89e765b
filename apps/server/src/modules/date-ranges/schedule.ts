import { type DateRangeException, type DateRangeInterval, type DateRangeStatusName, type DaySegment, type Holiday, type Weekday, weekdays, weekSegments } from '@voxplan/contracts';
import { DateTime } from 'luxon';

/** What the evaluation reads of a date range. */
export interface ScheduleDefinition {
  time_zone: string;
  intervals: readonly DateRangeInterval[];
  exceptions: readonly DateRangeException[];
}

/** An instant on the wall clock of a zone. */
export interface LocalMoment {
  dateTime: DateTime;
  /** The calendar date there, YYYY-MM-DD: what holidays and exceptions are matched on. */
  date: string;
  day: Weekday;
  /** Seconds since local midnight as the clock shows them (a DST day still runs 00:00 to 24:00). */
  clockSeconds: number;
}

export function localMoment(timeZone: string, instant: Date): LocalMoment {
  const dateTime = DateTime.fromJSDate(instant, { zone: timeZone });
  if (!dateTime.isValid) throw new RangeError(`cannot place ${instant.toISOString()} in ${timeZone}: ${dateTime.invalidExplanation ?? 'invalid'}`);
  return {
    dateTime,
    date: dateTime.toISODate()!,
    day: weekdays[dateTime.weekday - 1]!,
    clockSeconds: dateTime.hour * 3600 + dateTime.minute * 60 + dateTime.second + dateTime.millisecond / 1000,
  };
}

export interface ScheduleEvaluation {
  status: DateRangeStatusName;
  local: LocalMoment;
  holiday: Holiday | null;
  /** The closed period the local date falls in, if any (also reported under a holiday). */
  exception: DateRangeException | null;
}

/** A stored range's intervals are the same array until the range is written (the read cache's frozen row), so its week is worked out once. */
const weeks = new WeakMap<readonly DateRangeInterval[], Record<Weekday, DaySegment[]>>();

function segmentsOf(intervals: readonly DateRangeInterval[]): Record<Weekday, DaySegment[]> {
  let week = weeks.get(intervals);
  if (!week) weeks.set(intervals, (week = weekSegments(intervals)));
  return week;
}

/**
 * Where an instant falls in a date range: `holiday` when `holiday` is given (the holiday of the
 * range's place on the instant's local date; it wins over everything), else `out_of_hours` when the
 * local date is within an exception, else `in_hours` when the local wall-clock time is within an
 * interval of the local weekday (an interval crossing midnight counts on the next day up to its
 * end), else `out_of_hours`.
 *
 * Wall-clock semantics: on a spring-forward day the skipped hour contains no instant, so an
 * interval inside it is never open; on a fall-back day the repeated hour is open twice.
 */
export function evaluateSchedule(range: ScheduleDefinition, instant: Date, holiday?: Holiday, local = localMoment(range.time_zone, instant)): ScheduleEvaluation {
  const exception = range.exceptions.find((candidate) => candidate.initial_date <= local.date && local.date <= candidate.final_date) ?? null;
  if (holiday) return { status: 'holiday', local, holiday, exception };
  if (exception) return { status: 'out_of_hours', local, holiday: null, exception };
  const open = segmentsOf(range.intervals)[local.day].some(
    (segment) => segment.start * 60 <= local.clockSeconds && local.clockSeconds < segment.end * 60,
  );
  return { status: open ? 'in_hours' : 'out_of_hours', local, holiday: null, exception: null };
}
