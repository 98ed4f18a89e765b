import { z } from 'zod';

export const idSchema = z.number().int().positive();
export const timestampSchema = z.string().describe('ISO 8601 date-time, UTC');

export const roleNames = ['admin', 'user', 'guest'] as const;
export const roleNameSchema = z.enum(roleNames);
export type RoleName = z.infer<typeof roleNameSchema>;

/** Spec section 4: admin, then user, then guest; guest when none. */
export function effectiveRole(roles: readonly { role: RoleName }[]): RoleName {
  for (const candidate of roleNames) {
    if (roles.some((r) => r.role === candidate)) return candidate;
  }
  return 'guest';
}

export const countSchema = z.object({ count: z.number().int().nonnegative() });

export const idListSchema = z.union([
  z.array(idSchema).min(1).max(1000),
  z.object({ ids: z.array(idSchema).min(1).max(1000) }).strict(),
]);

/** Normalises the two spellings of a bulk-delete body to a plain list. */
export function idsOf(body: z.infer<typeof idListSchema>): number[] {
  return Array.isArray(body) ? body : body.ids;
}
