import { describe, expect, test } from 'vitest';
import { judgeAddress } from './address-policy.ts';

const strict = { allowLoopback: false, allowPrivate: false };
const open = { allowLoopback: true, allowPrivate: true };

describe('judgeAddress', () => {
  test.each([
    ['93.184.215.14', 'public IPv4'],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'public IPv6'],
    ['::ffff:93.184.215.14', 'a public IPv4 address written as IPv4-mapped IPv6'],
  ])('%s (%s) is allowed under the strictest policy', (address) => {
    expect(judgeAddress(address, strict)).toEqual({ allowed: true, range: 'unicast' });
  });

  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
  ])('%s is refused as %s unless the policy opens it', (address, range) => {
    expect(judgeAddress(address, strict)).toEqual({ allowed: false, range });
    expect(judgeAddress(address, open)).toEqual({ allowed: true, range });
  });

  test('loopback and private ranges open independently', () => {
    expect(judgeAddress('127.0.0.1', { allowLoopback: false, allowPrivate: true }).allowed).toBe(false);
    expect(judgeAddress('10.0.0.1', { allowLoopback: true, allowPrivate: false }).allowed).toBe(false);
    expect(judgeAddress('::ffff:127.0.0.1', { allowLoopback: true, allowPrivate: false }).allowed).toBe(true);
  });

  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
  ])('%s (%s) is refused whatever the policy', (address, range) => {
    expect(judgeAddress(address, open)).toEqual({ allowed: false, range });
  });

  test('text that is no IP address is refused', () => {
    expect(judgeAddress('localhost', open)).toEqual({ allowed: false, range: 'invalid' });
  });
});
