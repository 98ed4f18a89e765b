import { z } from 'zod';
import { roleNames } from './roles.ts';

/** Ids are 32-bit integer columns on both databases. */
export const maxId = 2 ** 31 - 1;
export const idSchema = z.number().int().positive().max(maxId);

/** Text a database can store: PostgreSQL refuses the NUL character outright. */
export const storableText = () => z.string().refine((text) => !text.includes('\0'), 'must not contain NUL characters');
export const timestampSchema = z.string().describe('ISO 8601 date-time, UTC');

export const roleNameSchema = z.enum(roleNames);

export const countSchema = z.object({ count: z.number().int().nonnegative() });

export const idListSchema = z.union([
  z.array(idSchema).min(1).max(1000),
  z.object({ ids: z.array(idSchema).min(1).max(1000) }).strict(),
]);

/** Normalises the two spellings of a bulk-delete body to a plain list. */
export function idsOf(body: z.infer<typeof idListSchema>): number[] {
  return Array.isArray(body) ? body : body.ids;
}
