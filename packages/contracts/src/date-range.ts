import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { countryCodeSchema, holidayLevels } from './holiday.ts';

/**
 * Date ranges ("schedules"): a time zone, weekly opening intervals, closed periods (exceptions) and
 * the place whose holidays apply. Whether an instant is in hours is decided on the wall clock of
 * the range's zone (apps/server/src/modules/date-ranges/schedule.ts).
 */

/** In ISO 8601 order: the index plus one is the ISO weekday (Monday 1 … Sunday 7), as Luxon numbers them. */
export const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof weekdays)[number];

export const MINUTES_PER_DAY = 24 * 60;

/** Limits of one range: enough for ten intervals a day and a year of closed days. */
export const dateRangeLimits = { intervals: 100, exceptions: 100, timeZone: 64 } as const;

const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A start: "HH:MM" from 00:00 to 23:59. */
export const isStartTime = (text: string): boolean => TIME_OF_DAY.test(text);
/** An end: "HH:MM" from 00:00 to 23:59, or 24:00 for the end of the day. */
export const isEndTime = (text: string): boolean => text === '24:00' || TIME_OF_DAY.test(text);

/** Minutes since midnight of a valid "HH:MM" (24:00 is 1440). */
export function minutesOf(text: string): number {
  const [hours = 0, minutes = 0] = text.split(':').map(Number);
  return hours * 60 + minutes;
}

/** "HH:MM" of minutes since midnight (0-1440). */
export function timeOfMinutes(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

// An IANA name ("America/Sao_Paulo", "UTC", "Etc/GMT+3"); offsets such as "+03:00" are not zones.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** Whether the runtime's time-zone database knows the IANA zone (the same test Luxon makes). */
export function isValidTimeZone(name: string): boolean {
  if (name.length > dateRangeLimits.timeZone || !ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

let knownZones: Map<string, string> | undefined;

/**
 * The zone spelled as the runtime's list spells it ("america/sao_paulo" → "America/Sao_Paulo").
 * Aliases are kept as given: Node's ICU would turn "Asia/Kolkata" into the older "Asia/Calcutta".
 */
export function canonicalTimeZone(name: string): string {
  knownZones ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]));
  const listed = knownZones.get(name.toLowerCase());
  if (listed) return listed;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
  } catch {
    return name;
  }
}

export const timeZoneSchema = z
  .string()
  .trim()
  .min(1)
  .refine(isValidTimeZone, 'invalidTimeZone')
  .transform(canonicalTimeZone)
  .describe('IANA time zone, e.g. America/Sao_Paulo');

/**
 * One opening interval: on `day`, from `start` up to (not including) `end`, wall-clock time in the
 * range's zone. An end earlier than the start crosses midnight: friday 22:00-02:00 also covers
 * saturday 00:00-02:00. An end equal to the start is refused (it would be empty).
 */
export const dateRangeIntervalSchema = z
  .object({
    day: z.enum(weekdays),
    start: z.string().min(1).refine(isStartTime, 'invalidTime').describe('HH:MM, 00:00-23:59'),
    end: z.string().min(1).refine(isEndTime, 'invalidTime').describe('HH:MM, 00:00-24:00; earlier than start crosses midnight'),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (isStartTime(value.start) && isEndTime(value.end) && minutesOf(value.start) === minutesOf(value.end)) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'emptyInterval' });
    }
  });
export type DateRangeInterval = z.infer<typeof dateRangeIntervalSchema>;

/** A named closed period: from `initial_date` to `final_date`, both included, calendar dates in the range's zone. */
export const dateRangeExceptionSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    initial_date: z.string().min(1).pipe(z.iso.date()),
    final_date: z.string().min(1).pipe(z.iso.date()),
  })
  .strict();
export type DateRangeException = z.infer<typeof dateRangeExceptionSchema>;

export const dateRangeSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  time_zone: z.string(),
  intervals: z.array(z.object({ day: z.enum(weekdays), start: z.string(), end: z.string() })),
  exceptions: z.array(z.object({ name: z.string(), initial_date: z.string(), final_date: z.string() })),
  country: z.string().describe('ISO 3166-1 alpha-2 whose holidays apply; empty: none'),
  state: z.string(),
  city: z.string(),
});
export type DateRange = z.infer<typeof dateRangeSchema>;

const placeText = z.string().trim().max(100);

const dateRangeFields = {
  name: z.string().trim().min(1).max(100),
  time_zone: timeZoneSchema,
  intervals: z.array(dateRangeIntervalSchema).max(dateRangeLimits.intervals),
  exceptions: z.array(dateRangeExceptionSchema).max(dateRangeLimits.exceptions),
  country: countryCodeSchema.or(z.literal('')),
  state: placeText,
  city: placeText,
};

/** The place holidays are looked up by: a city needs its state, a state its country. */
export function locationProblems(value: { country?: string; state?: string; city?: string }): { path: string; message: string }[] {
  const problems = [];
  if (value.city && !value.state) problems.push({ path: 'state', message: 'required' });
  if ((value.state || value.city) && !value.country) problems.push({ path: 'country', message: 'required' });
  return problems;
}

function checkLocation(value: { country?: string; state?: string; city?: string }, ctx: z.RefinementCtx): void {
  for (const problem of locationProblems(value)) ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
}

/**
 * Exceptions whose initial date is after their final date, named by the final date's path. The
 * server answers them with the code initial_date_after_final_date (the message is that code).
 */
export function exceptionOrderProblems(exceptions: readonly { initial_date?: string; final_date?: string }[] | undefined): { path: string; message: string }[] {
  return (exceptions ?? []).flatMap((exception, index) =>
    exception.initial_date && exception.final_date && exception.initial_date > exception.final_date
      ? [{ path: `exceptions.${index}.final_date`, message: 'initial_date_after_final_date' }]
      : [],
  );
}

/** For forms: the exceptions' order as field errors, checked before the request is sent. */
export function checkExceptionOrder(value: { exceptions?: readonly { initial_date?: string; final_date?: string }[] }, ctx: z.RefinementCtx): void {
  for (const problem of exceptionOrderProblems(value.exceptions)) {
    ctx.addIssue({ code: 'custom', path: problem.path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)), message: problem.message });
  }
}

const dateRangeDefaults = {
  intervals: dateRangeFields.intervals.default([]),
  exceptions: dateRangeFields.exceptions.default([]),
  country: dateRangeFields.country.default(''),
  state: dateRangeFields.state.default(''),
  city: dateRangeFields.city.default(''),
};

export const dateRangeCreateSchema = z
  .object({ ...dateRangeFields, ...dateRangeDefaults })
  .strict()
  .superRefine(checkLocation);
export type DateRangeInput = z.input<typeof dateRangeCreateSchema>;

/** A partial change; the place is checked against the record as it will be (server side). */
export const dateRangeUpdateSchema = z.object(dateRangeFields).partial().strict();

export const scheduleStatuses = ['in_hours', 'out_of_hours', 'holiday'] as const;
export type DateRangeStatusName = (typeof scheduleStatuses)[number];

/** An instant with its offset or Z; a local time alone would be ambiguous. */
export const instantSchema = z.iso.datetime({ offset: true }).describe('ISO 8601 instant with Z or an offset; default now');

export const dateRangeStatusQuerySchema = z.object({ at: instantSchema.optional() }).strict();

/** POST /date-ranges/preview: an unsaved range (no name needed) and the instant to evaluate it at. */
export const dateRangePreviewSchema = z
  .object({
    time_zone: dateRangeFields.time_zone,
    ...dateRangeDefaults,
    at: instantSchema.optional(),
  })
  .strict()
  .superRefine(checkLocation);
export type DateRangePreviewInput = z.input<typeof dateRangePreviewSchema>;

export const dateRangeStatusSchema = z.object({
  status: z.enum(scheduleStatuses),
  at: timestampSchema.describe('the instant evaluated, UTC'),
  local_time: z.string().describe("the instant on the range's wall clock, ISO 8601 with its offset"),
  time_zone: z.string(),
  day: z.enum(weekdays),
  holiday: z.object({ id: idSchema, name: z.string(), level: z.enum(holidayLevels), date: z.string() }).nullable(),
  exception: z.object({ name: z.string(), initial_date: z.string(), final_date: z.string() }).nullable(),
});
export type DateRangeStatus = z.infer<typeof dateRangeStatusSchema>;

/** The presets fill the intervals of a form; the range stores the intervals only. */
export const dateRangePresets = ['always', 'weekdays', 'weekdays_with_break'] as const;
export type DateRangePreset = (typeof dateRangePresets)[number];

const workdays = weekdays.slice(0, 5);
const presetIntervalsOf: Record<DateRangePreset, () => DateRangeInterval[]> = {
  always: () => weekdays.map((day) => ({ day, start: '00:00', end: '24:00' })),
  weekdays: () => workdays.map((day) => ({ day, start: '08:00', end: '18:00' })),
  weekdays_with_break: () =>
    workdays.flatMap((day) => [
      { day, start: '08:00', end: '12:00' },
      { day, start: '13:00', end: '18:00' },
    ]),
};

export function presetIntervals(preset: DateRangePreset): DateRangeInterval[] {
  return presetIntervalsOf[preset]();
}

const intervalKey = (interval: { day: string; start: string; end: string }) => `${interval.day} ${interval.start} ${interval.end}`;

/** The preset the intervals are exactly (in any order), if any. */
export function presetOf(intervals: readonly { day: string; start: string; end: string }[]): DateRangePreset | undefined {
  const given = intervals.map(intervalKey).sort().join('|');
  return dateRangePresets.find((preset) => presetIntervals(preset).map(intervalKey).sort().join('|') === given);
}

/** Minutes since midnight, start included, end not. */
export interface DaySegment {
  start: number;
  end: number;
}

/**
 * The open stretches of each day of the week: an interval crossing midnight is split at it (its
 * second part on the next day, Sunday's on Monday), overlapping or touching stretches are joined.
 * Invalid intervals are skipped. Both the week drawing and the evaluation read this.
 */
export function weekSegments(intervals: readonly { day: string; start: string; end: string }[]): Record<Weekday, DaySegment[]> {
  const byDay = Object.fromEntries(weekdays.map((day) => [day, [] as DaySegment[]])) as Record<Weekday, DaySegment[]>;
  for (const interval of intervals) {
    const index = weekdays.indexOf(interval.day as Weekday);
    if (index === -1 || !isStartTime(interval.start) || !isEndTime(interval.end)) continue;
    const start = minutesOf(interval.start);
    const end = minutesOf(interval.end);
    if (start === end) continue;
    const day = weekdays[index]!;
    if (end > start) {
      byDay[day].push({ start, end });
    } else {
      byDay[day].push({ start, end: MINUTES_PER_DAY });
      if (end > 0) byDay[weekdays[(index + 1) % 7]!].push({ start: 0, end });
    }
  }
  for (const day of weekdays) {
    const merged: DaySegment[] = [];
    for (const segment of byDay[day].sort((a, b) => a.start - b.start)) {
      const last = merged.at(-1);
      if (last && segment.start <= last.end) last.end = Math.max(last.end, segment.end);
      else merged.push({ ...segment });
    }
    byDay[day] = merged;
  }
  return byDay;
}
