import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';

/**
 * ACL addresses: an IPv4 or IPv6 address, or a network in CIDR notation (prefix 0-32 for IPv4,
 * 0-128 for IPv6). Parsing is ipaddr.js's; these rules only narrow what it accepts:
 * - IPv4 in the four-part decimal form only (no "10.1", "0xa.0.0.1" or leading zeros "010.0.0.1");
 * - no IPv6 zone ("fe80::1%eth0"), no leading zeros or sign in the prefix.
 *
 * Storage keeps what was given in canonical text: IPv6 lowercased and compressed
 * ("2001:DB8:0:0::1/64" → "2001:db8::1/64"), the prefix as given. Host bits are not cleared:
 * "10.0.0.1/24" stays "10.0.0.1/24" and means the network 10.0.0.0/24 when matched.
 */
export const aclAddressMaxLength = 64;

const PREFIX = /^(0|[1-9]\d{0,2})$/;
const FOUR_PART_DECIMAL = /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/;

type Parsed = { address: ipaddr.IPv4 | ipaddr.IPv6; prefix: number | null };

function parseHost(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (text.includes('%')) return null;
  if (ipaddr.IPv4.isValid(text)) return FOUR_PART_DECIMAL.test(text) ? ipaddr.IPv4.parse(text) : null;
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/** The address and prefix of an ACL entry, or null when the text is not one. */
export function parseAclAddress(text: string): Parsed | null {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const host = parseHost(slash === -1 ? trimmed : trimmed.slice(0, slash));
  if (!host) return null;
  if (slash === -1) return { address: host, prefix: null };
  const prefixText = trimmed.slice(slash + 1);
  if (!PREFIX.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (host.kind() === 'ipv4' ? 32 : 128)) return null;
  return { address: host, prefix };
}

export function isValidAclAddress(text: string): boolean {
  return parseAclAddress(text) !== null;
}

/** The canonical text of a valid address (see above); the text trimmed when it is not valid. */
export function canonicalAclAddress(text: string): string {
  const parsed = parseAclAddress(text);
  if (!parsed) return text.trim();
  const host = parsed.address.toString();
  return parsed.prefix === null ? host : `${host}/${parsed.prefix}`;
}

/**
 * Whether an address (IPv4 or IPv6; an IPv4-mapped IPv6 address counts as its IPv4 address) falls
 * in one of the entries. An entry without a prefix matches that address only; an IPv4-mapped IPv6
 * entry with a prefix of 96 or more matches the IPv4 network it maps. Invalid texts match nothing.
 */
export function aclAddressMatches(ip: string, entries: readonly string[]): boolean {
  const subject = parseAclAddress(ip);
  if (!subject || subject.prefix !== null) return false;
  const address = unmap(subject.address, 128).address;
  for (const entry of entries) {
    const parsed = parseAclAddress(entry);
    if (!parsed) continue;
    const network = unmap(parsed.address, parsed.prefix ?? (parsed.address.kind() === 'ipv4' ? 32 : 128));
    if (network.address.kind() !== address.kind()) continue;
    if (address.match(network.address, network.prefix)) return true;
  }
  return false;
}

function unmap(address: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): { address: ipaddr.IPv4 | ipaddr.IPv6; prefix: number } {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    return { address: (address as ipaddr.IPv6).toIPv4Address(), prefix: prefix - 96 };
  }
  return { address, prefix };
}

export const aclEntrySchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  address: z.string(),
  description: z.string(),
});
export type AclEntry = z.infer<typeof aclEntrySchema>;

const aclAddressSchema = z
  .string()
  .trim()
  .min(1)
  .max(aclAddressMaxLength)
  .refine(isValidAclAddress, 'invalidAddress')
  .transform(canonicalAclAddress);

const aclFields = {
  name: z.string().trim().min(1).max(100),
  address: aclAddressSchema,
  description: z.string().max(500),
};

export const aclCreateSchema = z.object({ ...aclFields, description: aclFields.description.default('') }).strict();
export const aclUpdateSchema = z.object(aclFields).partial().strict();
export type AclCreateInput = z.input<typeof aclCreateSchema>;
