/** Role rules without zod, so that the console's first screen need not load it. */
export const roleNames = ['admin', 'user', 'guest'] as const;
export type RoleName = (typeof roleNames)[number];

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
