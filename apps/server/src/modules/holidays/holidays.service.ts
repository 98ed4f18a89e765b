import type { Holiday, HolidayLevel } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database, HolidayTable } from '../../db/schema.ts';

type HolidayRow = Omit<HolidayTable, 'id'> & { id: number };

/** Stored rows keep recurring as 0/1 (SQLite has no boolean); the API speaks booleans. */
export function presentHoliday(row: Record<string, unknown>): Holiday {
  const holiday = row as unknown as HolidayRow;
  return {
    id: holiday.id,
    created_time: holiday.created_time,
    updated_time: holiday.updated_time,
    name: holiday.name,
    date: holiday.date,
    recurring: Number(holiday.recurring) === 1,
    level: holiday.level,
    country: holiday.country,
    state: holiday.state,
    city: holiday.city,
  };
}

/**
 * Keeps the place fields to what the level uses: a national holiday names no state or city, a
 * state one no city. Lookups (holidayOn) and the import's duplicate check rely on it.
 */
export function placeForLevel<T extends { level: HolidayLevel; state: string; city: string }>(value: T): T {
  if (value.level === 'national') return { ...value, state: '', city: '' };
  if (value.level === 'state') return { ...value, city: '' };
  return value;
}

export interface HolidayPlace {
  /** ISO 3166-1 alpha-2, e.g. BR. */
  country: string;
  /** e.g. SP. */
  state?: string;
  city?: string;
}

const specificity = { city: 0, state: 1, national: 2 } as const;

/**
 * Every holiday that applies at a place: the country's national ones, the state's own ones and the
 * city's own ones, on any date. Read once, they answer holidayOnDate for any date.
 */
export async function holidaysAt(db: Kysely<Database>, where: HolidayPlace): Promise<Holiday[]> {
  const country = where.country.trim().toUpperCase();
  const state = where.state?.trim() ?? '';
  const city = where.city?.trim() ?? '';
  const rows = await db
    .selectFrom('holidays')
    .selectAll()
    .where('country', '=', country)
    .where((eb) => {
      const places = [eb('level', '=', 'national')];
      if (state !== '') places.push(eb.and([eb('level', '=', 'state'), eb('state', '=', state)]));
      if (state !== '' && city !== '') places.push(eb.and([eb('level', '=', 'city'), eb('state', '=', state), eb('city', '=', city)]));
      return eb.or(places);
    })
    .orderBy('id')
    .execute();
  return rows.map(presentHoliday);
}

/**
 * The holiday of a place's list (holidaysAt) falling on a date (YYYY-MM-DD), if any: a recurring
 * holiday matches on month and day in any year. When several match, the most local one is
 * answered (city, then state, then national).
 */
export function holidayOnDate(holidays: readonly Holiday[], date: string): Holiday | undefined {
  const monthDay = date.slice(5);
  const matching = holidays.filter((holiday) => holiday.date === date || (holiday.recurring && holiday.date.slice(5) === monthDay));
  return matching.sort((a, b) => specificity[a.level] - specificity[b.level])[0];
}

/** The holiday falling on a date (YYYY-MM-DD) at a place, if any (holidayOnDate). */
export async function holidayOn(db: Kysely<Database>, date: string, where: HolidayPlace): Promise<Holiday | undefined> {
  return holidayOnDate(await holidaysAt(db, where), date);
}
