import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isAddressAllowed } from '../src/modules/acl/acl.service.ts';
import { startTestServer, type TestServer } from './harness.ts';

interface ErrorBody {
  error: { statusCode: number; code?: string; details?: { path: string; message: string }[] };
}
interface AclEntry {
  id: number;
  tenant_id: number;
  name: string;
  address: string;
  description: string;
  created_time: string;
  updated_time: string;
}

let server: TestServer;
let admin: string;
let serial = 0;
const next = () => (serial += 1);

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

async function tenantWithMember(): Promise<{ tenantId: number; token: string }> {
  const n = next();
  const tenant = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: `acl-${n}` } });
  expect(tenant.statusCode, tenant.body).toBe(201);
  const tenantId = tenant.json<{ id: number }>().id;
  const username = `acl-user-${n}`;
  const password = `${username}-password`;
  const user = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role: 'user', tenant_id: tenantId }] },
  });
  expect(user.statusCode, user.body).toBe(201);
  return { tenantId, token: await server.login(username, password) };
}

const create = (token: string, payload: Record<string, unknown>) => server.call({ method: 'POST', url: '/acl', token, payload });
async function created(token: string, address: string, name = `entry ${next()}`): Promise<AclEntry> {
  const response = await create(token, { name, address });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<AclEntry>();
}
const errorOf = (response: LightMyRequestResponse) => response.json<ErrorBody>().error;
const detailFields = (response: LightMyRequestResponse) => (errorOf(response).details ?? []).map((d) => d.path.split('.').pop());

function expectInvalid(response: LightMyRequestResponse, field: string) {
  expect(response.statusCode, response.body).toBe(400);
  expect(errorOf(response).code).toBe('invalid_input');
  expect(detailFields(response)).toContain(field);
}

describe('ACL entries: validation', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await tenantWithMember());
  });

  test.each([
    '10.0.0.256',
    '10.0.0',
    '10.1',
    '010.0.0.1',
    '0xa.0.0.1',
    '10.0.0.1.5',
    'host.example',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/',
    '10.0.0.0/024',
    '10.0.0.0/24/8',
    '2001:db8::/129',
    '2001:db8::1::2',
    '2001:db8:0:0:0:0:0:0:1',
    '2001:dg8::1',
    'fe80::1%eth0',
    ':::1',
    ' ',
  ])('refuses the address %j', async (address) => {
    const response = await create(token, { name: 'bad', address });
    expectInvalid(response, 'address');
  });

  test('the refinement message names the console translation key', async () => {
    const response = await create(token, { name: 'bad', address: '300.0.0.1' });
    expect(errorOf(response).details).toContainEqual(expect.objectContaining({ message: 'invalidAddress' }));
  });

  test.each([
    ['10.0.0.1', '10.0.0.1'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.0/24', '192.168.1.0/24'],
    ['  172.16.0.0/12 ', '172.16.0.0/12'],
    ['10.0.0.1/24', '10.0.0.1/24'],
    ['10.0.0.7/32', '10.0.0.7/32'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000::/64', '2001:db8::/64'],
    ['::', '::'],
    ['::/0', '::/0'],
    ['::1/128', '::1/128'],
    ['FE80::ABCD', 'fe80::abcd'],
    ['::ffff:10.0.0.1', '::ffff:a00:1'],
  ])('accepts %j and stores it as %j', async (address, stored) => {
    const entry = await created(token, address);
    expect(entry.address).toBe(stored);
    const read = await server.call({ method: 'GET', url: `/acl/${entry.id}`, token });
    expect(read.json<AclEntry>().address).toBe(stored);
  });

  test('name is required and at most 100 characters; description at most 500 and defaults to empty', async () => {
    expectInvalid(await create(token, { address: '10.9.0.1' }), 'name');
    expectInvalid(await create(token, { name: '  ', address: '10.9.0.1' }), 'name');
    expectInvalid(await create(token, { name: 'x'.repeat(101), address: '10.9.0.1' }), 'name');
    expectInvalid(await create(token, { name: 'ok', address: '10.9.0.1', description: 'x'.repeat(501) }), 'description');
    expectInvalid(await create(token, { name: 'ok' }), 'address');
    expectInvalid(await create(token, { name: 'ok', address: '10.9.0.1', extra: 1 }), 'extra');
    const entry = await created(token, '10.9.0.1', 'x'.repeat(100));
    expect(entry.description).toBe('');
  });

  test('a patch validates and canonicalises the address too', async () => {
    const entry = await created(token, '10.8.0.0/16');
    expectInvalid(await server.call({ method: 'PATCH', url: `/acl/${entry.id}`, token, payload: { address: '10.8.0.0/40' } }), 'address');
    const patched = await server.call({ method: 'PATCH', url: `/acl/${entry.id}`, token, payload: { address: '2001:DB8:8::/48', description: 'moved' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json<AclEntry>()).toMatchObject({ address: '2001:db8:8::/48', description: 'moved' });
  });
});

describe('ACL entries: uniqueness', () => {
  test('one address once per tenant, compared in canonical form → 409 address_already_exists', async () => {
    const { token } = await tenantWithMember();
    await created(token, '2001:db8:5::/64');
    for (const address of ['2001:db8:5::/64', '2001:DB8:5:0::/64', '2001:0db8:0005:0000:0000:0000:0000:0000/64']) {
      const response = await create(token, { name: 'again', address });
      expect(response.statusCode, response.body).toBe(409);
      expect(errorOf(response).code).toBe('address_already_exists');
    }
    const other = await created(token, '10.5.0.0/16');
    const patch = await server.call({ method: 'PATCH', url: `/acl/${other.id}`, token, payload: { address: '2001:db8:5::/64' } });
    expect(patch.statusCode, patch.body).toBe(409);
    expect(errorOf(patch).code).toBe('address_already_exists');

    // Another tenant may list the same network.
    const { token: otherToken } = await tenantWithMember();
    await created(otherToken, '2001:db8:5::/64');
  });
});

describe('isAddressAllowed', () => {
  let tenantId: number;
  let otherTenantId: number;
  beforeAll(async () => {
    const mine = await tenantWithMember();
    tenantId = mine.tenantId;
    await created(mine.token, '192.168.10.0/24');
    await created(mine.token, '2001:db8:abcd:12::/64');
    await created(mine.token, '203.0.113.7');
    await created(mine.token, '2001:db8:ffff::1');
    const other = await tenantWithMember();
    otherTenantId = other.tenantId;
    await created(other.token, '10.0.0.0/8');
    await created(other.token, 'fd00::/8');
  });

  const allowed = (ip: string, tenant = tenantId) => isAddressAllowed(server.ctx.db, tenant, ip);

  test.each([
    // a /24: its first and last addresses, and the ones just outside
    ['192.168.10.0', true],
    ['192.168.10.5', true],
    ['192.168.10.255', true],
    ['192.168.9.255', false],
    ['192.168.11.0', false],
    // a /64
    ['2001:db8:abcd:12::', true],
    ['2001:db8:abcd:12:ffff:ffff:ffff:ffff', true],
    ['2001:DB8:ABCD:12:0:0:0:1', true],
    ['2001:db8:abcd:11:ffff:ffff:ffff:ffff', false],
    ['2001:db8:abcd:13::', false],
    // single addresses
    ['203.0.113.7', true],
    ['203.0.113.8', false],
    ['2001:db8:ffff::1', true],
    ['2001:db8:ffff::2', false],
    // IPv4-mapped IPv6 matches the IPv4 networks
    ['::ffff:192.168.10.77', true],
    ['::ffff:c0a8:a4d', true],
    ['::ffff:203.0.113.7', true],
    ['::ffff:192.168.11.1', false],
    // neither family crosses over otherwise, and a network or garbage is no address
    ['::c0a8:a05', false],
    ['192.168.10.0/24', false],
    ['not an ip', false],
    ['', false],
  ])('%s → %s', async (ip, expected) => {
    expect(await allowed(ip)).toBe(expected);
  });

  test("another tenant's entries do not count", async () => {
    expect(await allowed('10.1.2.3')).toBe(false);
    expect(await allowed('fd12::1')).toBe(false);
    expect(await allowed('10.1.2.3', otherTenantId)).toBe(true);
    expect(await allowed('::ffff:10.1.2.3', otherTenantId)).toBe(true);
    expect(await allowed('192.168.10.5', otherTenantId)).toBe(false);
  });

  test('a tenant without entries allows nothing', async () => {
    const { tenantId: empty } = await tenantWithMember();
    expect(await allowed('192.168.10.5', empty)).toBe(false);
    expect(await allowed('::1', empty)).toBe(false);
  });

  test('an entry added or removed through the API takes effect at once', async () => {
    const { tenantId: id, token } = await tenantWithMember();
    expect(await allowed('198.51.100.20', id)).toBe(false);
    const entry = await created(token, '198.51.100.0/28');
    expect(await allowed('198.51.100.15', id)).toBe(true);
    expect(await allowed('198.51.100.16', id)).toBe(false);
    const removed = await server.call({ method: 'DELETE', url: `/acl/${entry.id}`, token });
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    expect(await allowed('198.51.100.15', id)).toBe(false);
  });
});
