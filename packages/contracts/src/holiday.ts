import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

export const holidayLevels = ['national', 'state', 'city'] as const;
export type HolidayLevel = (typeof holidayLevels)[number];

/** Years the holiday import accepts. */
export const holidayYearRange = { min: 1970, max: 2100 } as const;

export const holidaySchema = z.object({
  id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  date: z.string().describe('YYYY-MM-DD; when recurring only the month and day count'),
  recurring: z.boolean(),
  level: z.enum(holidayLevels),
  country: z.string().describe('ISO 3166-1 alpha-2'),
  state: z.string(),
  city: z.string(),
});
export type Holiday = z.infer<typeof holidaySchema>;

/** ISO 3166-1 alpha-2, uppercase (BR): the country of holidays and of the places that consult them. */
export const countryCodeSchema = z
  .string()
  .trim()
  .regex(/^[A-Z]{2}$/);

const holidayFields = {
  name: z.string().trim().min(1).max(200),
  // YYYY-MM-DD and a real calendar date (no 2026-02-30; 29 February in leap years only).
  date: z.iso.date(),
  recurring: z.boolean(),
  level: z.enum(holidayLevels),
  country: countryCodeSchema,
  state: z.string().trim().max(100),
  city: z.string().trim().max(100),
};

/** State for state and city holidays, city for city ones; the message is the console's "Required". */
export function checkHolidayLevel(value: { level?: HolidayLevel; state?: string; city?: string }, ctx: z.RefinementCtx): void {
  if ((value.level === 'state' || value.level === 'city') && !value.state) ctx.addIssue({ code: 'custom', path: ['state'], message: 'required' });
  if (value.level === 'city' && !value.city) ctx.addIssue({ code: 'custom', path: ['city'], message: 'required' });
}

export const holidayCreateSchema = z
  .object({
    ...holidayFields,
    recurring: holidayFields.recurring.default(false),
    state: holidayFields.state.default(''),
    city: holidayFields.city.default(''),
  })
  .strict()
  .superRefine(checkHolidayLevel);

/** A partial change; the level rules are checked against the record as it will be (server side). */
export const holidayUpdateSchema = z.object(holidayFields).partial().strict();

export const holidayImportSchema = z
  .object({
    country: holidayFields.country,
    state: z
      .string()
      .trim()
      .regex(/^[A-Z0-9]{1,3}$/)
      .optional(),
    year: z.number().int().min(holidayYearRange.min).max(holidayYearRange.max),
  })
  .strict();
export type HolidayImport = z.infer<typeof holidayImportSchema>;

export const holidayImportResultSchema = z.object({
  added: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  holidays: z.array(holidaySchema),
});
export type HolidayImportResult = z.infer<typeof holidayImportResultSchema>;
