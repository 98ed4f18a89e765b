import { z } from 'zod';

/** Ids are 32-bit integer columns on both databases. */
export const maxId = 2 ** 31 - 1;
export const idSchema = z.number().int().positive().max(maxId);

/** Text a database can store: PostgreSQL refuses the NUL character outright. */
export const storableText = () => z.string().refine((text) => !text.includes('\0'), 'must not contain NUL characters');
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

/**
 * The role a non-admin works with: the strongest of the roles held in the tenant they work in
 * (their first role's), so a role held in another tenant never lends its rights here.
 */
export function roleInWorkingTenant(roles: readonly { role: RoleName; tenant_id: number | null }[]): RoleName {
  if (roles.some((r) => r.role === 'admin')) return 'admin';
  const tenantId = roles[0]?.tenant_id ?? null;
  return effectiveRole(roles.filter((r) => r.tenant_id === tenantId));
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
