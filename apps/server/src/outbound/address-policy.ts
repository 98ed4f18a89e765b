import ipaddr from 'ipaddr.js';

/** Which address ranges, beyond the public internet, requests leaving the server may reach. */
export interface AddressPolicy {
  /** 127.0.0.0/8 and ::1 (also written as IPv4-mapped IPv6). */
  allowLoopback: boolean;
  /** RFC 1918 (10/8, 172.16/12, 192.168/16), unique-local IPv6 (fc00::/7) and carrier-grade NAT (100.64/10). */
  allowPrivate: boolean;
}

export const strictPolicy: AddressPolicy = { allowLoopback: false, allowPrivate: false };

/** `range` is ipaddr.js's name for the address's range (`unicast` for the public internet), or `invalid`. */
export interface AddressVerdict {
  allowed: boolean;
  range: string;
}

const privateRanges = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);

/**
 * Decides whether a resolved IP address may be connected to. Only ipaddr.js's `unicast` range is
 * public; loopback and the private ranges open with the policy. Every other special range stays
 * closed whatever the policy says: unspecified (0.0.0.0, ::, which reach the local host),
 * link-local (169.254/16 holds cloud metadata services, fe80::/10), multicast, broadcast,
 * documentation and reserved blocks, and the IPv6 prefixes that embed an IPv4 address (NAT64,
 * 6to4, Teredo), whose IPv4 half cannot be trusted to be public.
 */
export function judgeAddress(text: string, policy: AddressPolicy): AddressVerdict {
  if (!ipaddr.isValid(text)) return { allowed: false, range: 'invalid' };
  let address = ipaddr.parse(text);
  // ::ffff:a.b.c.d is the IPv4 host a.b.c.d; judge it as such so ::ffff:127.0.0.1 is loopback.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  const range = address.range();
  const allowed = range === 'unicast' || (range === 'loopback' && policy.allowLoopback) || (privateRanges.has(range) && policy.allowPrivate);
  return { allowed, range };
}
