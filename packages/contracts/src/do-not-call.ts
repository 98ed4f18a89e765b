import { z } from 'zod';
import { idSchema, storableText, timestampSchema } from './common.ts';

/**
 * A tenant's do-not-call list (issue 38, docs/do-not-call.md): numbers its plans never dial. A
 * number is entered in any form and stored in E.164, read with the tenant's country.
 */

export const doNotCallLimits = {
  /** As typed, before it is brought to E.164. */
  number: 40,
  reason: 300,
  /** An import's file; ~250,000 numbers with short reasons. */
  importMb: 5,
  /** Invalid lines an import lists back; the rest are counted. */
  invalidListed: 1000,
} as const;

export const doNotCallEntrySchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  number: z.string().describe('E.164'),
  reason: z.string(),
  added_by: z.string().describe('The name of who added it, as it was then'),
});
export type DoNotCallEntry = z.infer<typeof doNotCallEntrySchema>;

const entryFields = {
  number: storableText().pipe(z.string().trim().min(1).max(doNotCallLimits.number)).describe('Any form; national numbers are read with the tenant’s country'),
  reason: storableText().pipe(z.string().trim().max(doNotCallLimits.reason)),
};
export const doNotCallCreateSchema = z.object({ number: entryFields.number, reason: entryFields.reason.optional() }).strict();
export const doNotCallUpdateSchema = z.object(entryFields).partial().strict();
export type DoNotCallInput = z.input<typeof doNotCallCreateSchema>;

/** Why an imported line was not added. */
export const doNotCallLineProblems = ['invalid_phone_number', 'reason_too_long'] as const;
export type DoNotCallLineProblem = (typeof doNotCallLineProblems)[number];

export const doNotCallImportResultSchema = z.object({
  added: z.number().int().nonnegative(),
  /** Lines whose number was already listed, or appeared earlier in the file. */
  duplicates: z.number().int().nonnegative(),
  invalid_count: z.number().int().nonnegative(),
  /** The first invalid lines (doNotCallLimits.invalidListed), by their line in the file (1 is the first). */
  invalid: z.array(z.object({ line: z.number().int().positive(), value: z.string(), problem: z.enum(doNotCallLineProblems) })),
});
export type DoNotCallImportResult = z.infer<typeof doNotCallImportResultSchema>;
