import { aclAddressMatches } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * Whether a tenant's ACL lets a call in from this address: true when the address (IPv4 or IPv6;
 * an IPv4-mapped IPv6 address such as ::ffff:10.0.0.5 counts as its IPv4 address) falls in one of
 * the tenant's entries. An invalid address, or a tenant without entries, is refused.
 */
export async function isAddressAllowed(db: Kysely<Database>, tenantId: number, ip: string): Promise<boolean> {
  const rows = await db.selectFrom('acl').select('address').where('tenant_id', '=', tenantId).execute();
  return aclAddressMatches(ip, rows.map((row) => row.address));
}
