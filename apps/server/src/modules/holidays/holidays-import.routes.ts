import { type Holiday, holidayImportResultSchema, holidayImportSchema } from '@voxplan/contracts';
import Holidays from 'date-holidays';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { assertAllowed, scopeOf } from '../../plugins/auth.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { presentHoliday } from './holidays.service.ts';

interface Candidate {
  name: string;
  date: string;
  level: 'national' | 'state';
  state: string;
}

/** The year's public holidays of a calendar, once per date and name. */
function publicHolidays(calendar: Holidays, year: number): { name: string; date: string }[] {
  const seen = new Set<string>();
  const found: { name: string; date: string }[] = [];
  for (const holiday of calendar.getHolidays(year)) {
    if (holiday.type !== 'public') continue;
    // 'YYYY-MM-DD hh:mm:ss' in the country's own time zone: the day people are off.
    const date = holiday.date.slice(0, 10);
    const key = `${date}|${holiday.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ name: holiday.name, date });
  }
  return found;
}

/**
 * What date-holidays lists for the country (national) and, given a state, the state's own holidays
 * (those the national list also has stay national). An unknown country or state answers 400.
 */
export function holidaysToImport(country: string, state: string | undefined, year: number): Candidate[] {
  const catalogue = new Holidays();
  if (!Object.hasOwn(catalogue.getCountries(), country)) {
    throw badRequest('holiday_region_unknown', [{ path: 'country', message: `'${country}' is not a known country` }]);
  }
  if (state !== undefined && !Object.hasOwn(catalogue.getStates(country) ?? {}, state)) {
    throw badRequest('holiday_region_unknown', [{ path: 'state', message: `'${state}' is not a known state of ${country}` }]);
  }
  const national = publicHolidays(new Holidays(country), year);
  const candidates: Candidate[] = national.map((holiday) => ({ ...holiday, level: 'national', state: '' }));
  if (state !== undefined) {
    const nationalKeys = new Set(national.map((holiday) => `${holiday.date}|${holiday.name}`));
    for (const holiday of publicHolidays(new Holidays(country, state), year)) {
      if (!nationalKeys.has(`${holiday.date}|${holiday.name}`)) candidates.push({ ...holiday, level: 'state', state });
    }
  }
  return candidates;
}

/** POST /holidays/import: one year of national (and a state's) public holidays, skipping those already there. */
export function registerHolidayImportRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post(
    '/holidays/import',
    {
      // As for every write: the role is checked before the body, so a user learns it may not import.
      preValidation: async (request) => assertAllowed(scopeOf(request).actor, 'admin', true),
      schema: { tags: ['holidays'], body: holidayImportSchema, response: { 200: holidayImportResultSchema } },
    },
    async (request) => {
      const scope = scopeOf(request);
      const { country, state, year } = request.body;
      const candidates = holidaysToImport(country, state, year);
      if (candidates.length === 0) return { added: 0, skipped: 0, holidays: [] };
      return ctx.db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('holidays')
          .select(['date', 'level', 'state', 'name'])
          .where('country', '=', country)
          .where('city', '=', '')
          .where('date', 'in', [...new Set(candidates.map((candidate) => candidate.date))])
          .execute();
        const present = new Set(existing.map((row) => `${row.date}|${row.level}|${row.state}|${row.name}`));
        const fresh = candidates.filter((candidate) => !present.has(`${candidate.date}|${candidate.level}|${candidate.state}|${candidate.name}`));
        const added: Holiday[] = [];
        if (fresh.length > 0) {
          const now = nowIso();
          const rows = await trx
            .insertInto('holidays')
            .values(fresh.map((candidate) => ({ ...candidate, country, city: '', recurring: 0, created_time: now, updated_time: now })))
            .returningAll()
            .execute();
          added.push(...rows.map(presentHoliday));
          await recordAudit(
            trx,
            scope,
            added.map((holiday) => ({ action: 'create', entity: 'holiday', entityId: holiday.id, tenantId: null, before: null, after: holiday })),
          );
        }
        return { added: added.length, skipped: candidates.length - added.length, holidays: added };
      });
    },
  );
}
