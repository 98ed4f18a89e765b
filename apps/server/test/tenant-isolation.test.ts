import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { allResources } from '../src/resources/registry.ts';
import { q, startTestServer, type TestServer } from './harness.ts';
import { insertReport } from './sessions-helpers.ts';

/**
 * The tenant isolation matrix: for every tenant-owned resource and every verb, a member of tenant A
 * can neither see nor touch tenant B's rows, whatever the filter, body or headers say.
 *
 * The matrix is built from the registry. A new tenant-owned resource that members write is covered
 * by adding its sample row below; one that members only read (written by the server itself) by a
 * factory that stores a row directly; without one the suite fails and says so.
 */

interface Sample {
  /** A valid create body; n makes it unique. */
  create(n: number): Record<string, unknown>;
  /** A valid patch body that changes something visible. */
  patch: Record<string, unknown>;
}
const samples: Record<string, Sample> = {
  '/destinations': {
    create: (n) => ({ name: `Isolated ${n}`, kind: 'voice', uri: `sip:isolated-${n}@pbx.example`, description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/acl': {
    create: (n) => ({ name: `Isolated ${n}`, address: `10.${Math.floor(n / 256) % 256}.${n % 256}.0/24`, description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/date-ranges': {
    create: (n) => ({ name: `Isolated ${n}`, time_zone: 'America/Sao_Paulo', intervals: [{ day: 'monday', start: '08:00', end: '18:00' }], country: 'BR' }),
    // Names are unique in a tenant, so the bulk patch changes something else.
    patch: { time_zone: 'Europe/Lisbon' },
  },
};

/** Rows of read-only resources, stored the way the server stores them: answers the row's id. */
const readOnlyRows: Record<string, (tenantId: number, n: number) => Promise<number>> = {
  '/reports': async (tenantId, n) => (await insertReport(server.ctx, tenantId, { sessionId: `isolated-${n}` })).id,
};

interface Row {
  id: number;
  tenant_id: number;
  [field: string]: unknown;
}
interface ErrorBody {
  error: { statusCode: number; code: string };
}

const tenantOwned = allResources().filter((resource) => resource.tenantOwned);
const memberWritable = tenantOwned.filter((resource) => !resource.readOnly && resource.write === 'member');
const memberReadOnly = tenantOwned.filter((resource) => resource.readOnly && resource.read !== 'admin');
const adminReadable = tenantOwned.filter((resource) => resource.read === 'admin');

let server: TestServer;
let admin: string;
let serial = 0;
const next = () => (serial += 1);

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

async function createTenant(): Promise<number> {
  const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: `iso-${next()}` } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

async function createUser(tenantId: number, role: 'user' | 'guest'): Promise<{ id: number; token: string }> {
  const username = `iso-${role}-${next()}`;
  const password = `${username}-password`;
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { id: response.json<{ id: number }>().id, token: await server.login(username, password) };
}

function sampleOf(resource: ResourceDefinition): Sample {
  const sample = samples[resource.path];
  if (!sample) {
    throw new Error(`tenant-owned resource ${resource.path} has no sample-row factory in tenant-isolation.test.ts: add one`);
  }
  return sample;
}

const expectCode = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json<ErrorBody>().error.code).toBe(code);
};

/** Two tenants, a member and a guest of A, a member of B, and rows in both tenants. */
interface World {
  a: number;
  b: number;
  userA: { id: number; token: string };
  guestA: { id: number; token: string };
  userB: { id: number; token: string };
  aIds: number[];
  bIds: number[];
}

async function buildWorld(resource: ResourceDefinition): Promise<World> {
  const [a, b] = [await createTenant(), await createTenant()];
  const [userA, guestA, userB] = [await createUser(a, 'user'), await createUser(a, 'guest'), await createUser(b, 'user')];
  const store = readOnlyRows[resource.path];
  const make = async (user: { token: string }, tenantId: number) => {
    if (resource.readOnly && store) return store(tenantId, next());
    const response = await server.call({ method: 'POST', url: resource.path, token: user.token, payload: sampleOf(resource).create(next()) });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<Row>().id;
  };
  const aIds = [await make(userA, a), await make(userA, a), await make(userA, a)];
  const bIds = [await make(userB, b), await make(userB, b), await make(userB, b)];
  return { a, b, userA, guestA, userB, aIds, bIds };
}

describe('the matrix covers every tenant-owned resource', () => {
  test('each is member-writable with a sample factory, member-read-only with a row factory, or admin-only', () => {
    expect(tenantOwned.length).toBeGreaterThan(0);
    for (const resource of tenantOwned) {
      if (memberWritable.includes(resource)) {
        expect(samples[resource.path], `add a sample-row factory for ${resource.path}`).toBeDefined();
      } else if (memberReadOnly.includes(resource)) {
        expect(readOnlyRows[resource.path], `add a row factory for ${resource.path}`).toBeDefined();
      } else {
        expect(adminReadable.map((r) => r.path), `extend the matrix for ${resource.path}`).toContain(resource.path);
      }
    }
    // No stale factories either.
    expect(Object.keys(samples).sort()).toEqual(memberWritable.map((resource) => resource.path).sort());
    expect(Object.keys(readOnlyRows).sort()).toEqual(memberReadOnly.map((resource) => resource.path).sort());
  });
});

describe.each(memberWritable.map((resource) => [resource.path, resource] as const))('%s: a member of A against B', (path, resource) => {
  let world: World;
  let bSnapshot: Row[];
  const sample = () => sampleOf(resource);

  /** The rows of a tenant, as the administrator sees them. */
  const rowsOf = async (tenantId: number): Promise<Row[]> => {
    const response = await server.call({ method: 'GET', url: `${path}?${q('filter', { order: ['id ASC'] })}`, token: admin, tenant: tenantId });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Row[]>();
  };
  const idsOf = async (tenantId: number) => (await rowsOf(tenantId)).map((row) => row.id);
  const asA = (options: Parameters<TestServer['call']>[0]) => server.call({ ...options, token: world.userA.token });
  const listAsA = async (filter: unknown, tenantHeader?: number) => {
    const response = await asA({ method: 'GET', url: `${path}?${q('filter', filter)}`, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Row[]>().map((row) => row.id);
  };
  const countAsA = async (where: unknown, tenantHeader?: number) => {
    const response = await asA({ method: 'GET', url: `${path}/count?${q('where', where)}`, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ count: number }>().count;
  };
  /** Where clauses that try to reach B's rows; the scope is ANDed with each of them. */
  const reachingForB = () => [
    { tenant_id: world.b },
    { id: { inq: world.bIds } },
    { or: [{ tenant_id: world.b }, { id: { inq: world.bIds } }] },
    { or: [{ id: world.bIds[0] }, { id: world.bIds[1] }] },
    { and: [{ tenant_id: { neq: world.a } }] },
    { tenant_id: { inq: [world.a, world.b] }, id: { inq: world.bIds } },
  ];

  beforeAll(async () => {
    world = await buildWorld(resource);
    bSnapshot = await rowsOf(world.b);
    expect(bSnapshot.map((row) => row.id)).toEqual(world.bIds);
  });
  afterEach(async () => {
    // Whatever A tried, B's rows are exactly as they were.
    expect(await rowsOf(world.b)).toEqual(bSnapshot);
  });

  test('count: only A\'s rows, whatever the where says', async () => {
    expect(await countAsA({})).toBe((await idsOf(world.a)).length);
    for (const where of reachingForB()) expect(await countAsA(where), JSON.stringify(where)).toBe(0);
    expect(await countAsA({ or: [{ tenant_id: world.a }, { tenant_id: world.b }] })).toBe((await idsOf(world.a)).length);
    expect(await countAsA({}, world.b)).toBe((await idsOf(world.a)).length);
  });

  test('list: only A\'s rows, whatever the filter or the x-tenant-id header says', async () => {
    const aIds = await idsOf(world.a);
    expect(await listAsA({ order: ['id ASC'] })).toEqual(aIds);
    for (const where of reachingForB()) expect(await listAsA({ where }), JSON.stringify(where)).toEqual([]);
    expect(await listAsA({ where: { or: [{ tenant_id: world.a }, { tenant_id: world.b }] }, order: ['id ASC'] })).toEqual(aIds);
    expect(await listAsA({ where: { id: { inq: [...world.bIds, world.aIds[0]] } } })).toEqual([world.aIds[0]]);
    expect(await listAsA({ order: ['id ASC'] }, world.b)).toEqual(aIds);
    // A guest of A reads A's rows, and only those.
    const guest = await server.call({ method: 'GET', url: `${path}?${q('filter', { order: ['id ASC'] })}`, token: world.guestA.token, tenant: world.b });
    expect(guest.json<Row[]>().map((row) => row.id)).toEqual(aIds);
  });

  test('get: B\'s ids are not found, even with x-tenant-id pointing at B', async () => {
    for (const id of world.bIds) {
      expectCode(await asA({ method: 'GET', url: `${path}/${id}` }), 404, 'not_found');
      expectCode(await asA({ method: 'GET', url: `${path}/${id}`, tenant: world.b }), 404, 'not_found');
      expectCode(await server.call({ method: 'GET', url: `${path}/${id}`, token: world.guestA.token }), 404, 'not_found');
    }
    const own = await asA({ method: 'GET', url: `${path}/${world.aIds[0]}` });
    expect(own.statusCode).toBe(200);
    expect(own.json<Row>().tenant_id).toBe(world.a);
  });

  test('create: the row lands in A, whatever the body or the header say', async () => {
    const withTenantField = await asA({ method: 'POST', url: path, payload: { ...sample().create(next()), tenant_id: world.b } });
    if (withTenantField.statusCode === 400) {
      expect(withTenantField.json<ErrorBody>().error.code).toBe('invalid_input');
    } else {
      expect(withTenantField.statusCode, withTenantField.body).toBe(201);
      expect(withTenantField.json<Row>().tenant_id).toBe(world.a);
    }
    const withHeader = await asA({ method: 'POST', url: path, tenant: world.b, payload: sample().create(next()) });
    expect(withHeader.statusCode, withHeader.body).toBe(201);
    const created = withHeader.json<Row>();
    expect(created.tenant_id).toBe(world.a);
    expect(await idsOf(world.a)).toContain(created.id);
  });

  test('patch and put: B\'s ids are not found; tenant_id in the body cannot move A\'s row', async () => {
    for (const method of ['PATCH', 'PUT'] as const) {
      for (const id of world.bIds) {
        expectCode(await asA({ method, url: `${path}/${id}`, payload: sample().patch }), 404, 'not_found');
        expectCode(await asA({ method, url: `${path}/${id}`, tenant: world.b, payload: sample().patch }), 404, 'not_found');
      }
    }
    const target = world.aIds[0]!;
    const before = (await rowsOf(world.a)).find((row) => row.id === target)!;
    const moved = await asA({ method: 'PATCH', url: `${path}/${target}`, payload: { ...sample().patch, tenant_id: world.b } });
    if (moved.statusCode === 400) {
      expect(moved.json<ErrorBody>().error.code).toBe('invalid_input');
      expect((await rowsOf(world.a)).find((row) => row.id === target)).toEqual(before);
    } else {
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json<Row>().tenant_id).toBe(world.a);
    }
    expect(await idsOf(world.a)).toContain(target);
  });

  test('bulk patch: B\'s rows are never matched; without a where only A\'s rows change', async () => {
    for (const where of reachingForB()) {
      const response = await asA({ method: 'PATCH', url: `${path}?${q('where', where)}`, payload: sample().patch });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json(), JSON.stringify(where)).toEqual({ count: 0 });
    }
    const aCount = (await idsOf(world.a)).length;
    const all = await asA({ method: 'PATCH', url: path, tenant: world.b, payload: sample().patch });
    expect(all.json()).toEqual({ count: aCount });
    for (const row of await rowsOf(world.a)) expect(row).toMatchObject(sample().patch);
    const withTenant = await asA({ method: 'PATCH', url: path, payload: { ...sample().patch, tenant_id: world.b } });
    if (withTenant.statusCode === 400) expect(withTenant.json<ErrorBody>().error.code).toBe('invalid_input');
    else expect(withTenant.json()).toEqual({ count: aCount });
    expect((await idsOf(world.a)).length).toBe(aCount);
  });

  test('delete: B\'s ids are not found and stay', async () => {
    for (const id of world.bIds) {
      expectCode(await asA({ method: 'DELETE', url: `${path}/${id}` }), 404, 'not_found');
      expectCode(await asA({ method: 'DELETE', url: `${path}/${id}`, tenant: world.b }), 404, 'not_found');
    }
  });

  test('bulk delete: B\'s ids count 0 and stay; a mixed list deletes only A\'s', async () => {
    for (const payload of [world.bIds, { ids: world.bIds }]) {
      const response = await asA({ method: 'DELETE', url: path, payload });
      expect(response.json()).toEqual({ count: 0 });
      const viaHeader = await asA({ method: 'DELETE', url: path, tenant: world.b, payload });
      expect(viaHeader.json()).toEqual({ count: 0 });
    }
    const victim = world.aIds[2]!;
    const mixed = await asA({ method: 'DELETE', url: path, payload: [world.bIds[0], victim, world.bIds[1]] });
    expect(mixed.json()).toEqual({ count: 1 });
    expect(await idsOf(world.a)).not.toContain(victim);
  });

  test('B\'s member, the other way round, sees none of A\'s rows', async () => {
    const response = await server.call({ method: 'GET', url: `${path}?${q('filter', { order: ['id ASC'] })}`, token: world.userB.token, tenant: world.a });
    expect(response.json<Row[]>().map((row) => row.id)).toEqual(world.bIds);
  });
});

describe.each(memberWritable.map((resource) => [resource.path, resource] as const))('%s: the administrator and the tenant header', (path, resource) => {
  let world: World;
  const countAll = async (tenantHeader?: number) => {
    const response = await server.call({ method: 'GET', url: `${path}/count`, token: admin, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
    return response.json<{ count: number }>().count;
  };
  beforeAll(async () => {
    world = await buildWorld(resource);
  });

  test('x-tenant-id 0 or absent: reading sees every tenant', async () => {
    for (const header of [undefined, 0]) {
      const response = await server.call({
        method: 'GET',
        url: `${path}?${q('filter', { where: { id: { inq: [...world.aIds, ...world.bIds] } }, order: ['id ASC'] })}`,
        token: admin,
        ...(header !== undefined && { tenant: header }),
      });
      expect(response.json<Row[]>().map((row) => row.id)).toEqual([...world.aIds, ...world.bIds]);
      for (const id of world.bIds) {
        const one = await server.call({ method: 'GET', url: `${path}/${id}`, token: admin, ...(header !== undefined && { tenant: header }) });
        expect(one.statusCode).toBe(200);
      }
    }
    expect(await countAll()).toBe(await countAll(0));
    expect(await countAll(world.a)).toBe(world.aIds.length);
    expect(await countAll()).toBeGreaterThanOrEqual((await countAll(world.a)) + (await countAll(world.b)));
  });

  test('x-tenant-id 0 or absent: creating is refused with no_tenant_provided', async () => {
    const before = await countAll();
    expectCode(await server.call({ method: 'POST', url: path, token: admin, payload: sampleOf(resource).create(next()) }), 400, 'no_tenant_provided');
    expectCode(await server.call({ method: 'POST', url: path, token: admin, tenant: 0, payload: sampleOf(resource).create(next()) }), 400, 'no_tenant_provided');
    expect(await countAll()).toBe(before);
  });

  test('x-tenant-id B: the administrator works in B only', async () => {
    const created = await server.call({ method: 'POST', url: path, token: admin, tenant: world.b, payload: sampleOf(resource).create(next()) });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<Row>().tenant_id).toBe(world.b);
    const listed = await server.call({ method: 'GET', url: `${path}?${q('filter', { order: ['id ASC'] })}`, token: admin, tenant: world.b });
    expect(listed.json<Row[]>().map((row) => row.id)).toEqual([...world.bIds, created.json<Row>().id]);
    expectCode(await server.call({ method: 'GET', url: `${path}/${world.aIds[0]}`, token: admin, tenant: world.b }), 404, 'not_found');
    const patched = await server.call({ method: 'PATCH', url: `${path}?${q('where', { id: { inq: world.aIds } })}`, token: admin, tenant: world.b, payload: sampleOf(resource).patch });
    expect(patched.json()).toEqual({ count: 0 });
  });

  test('a tenant header that is not an id is refused', async () => {
    for (const header of ['abc', '-1', '1.5', '99999999999']) {
      const response = await server.call({ method: 'GET', url: path, token: admin, headers: { 'x-tenant-id': header } });
      expectCode(response, 400, 'invalid_input');
    }
  });
});

describe.each(memberWritable.map((resource) => [resource.path, resource] as const))('%s: a member whose role has no tenant', (path, resource) => {
  let world: World;
  let orphan: string;
  let orphanGuest: string;

  beforeAll(async () => {
    world = await buildWorld(resource);
    const user = await createUser(world.a, 'user');
    const guest = await createUser(world.a, 'guest');
    // The API refuses a non-admin role without a tenant (checked below); older data may still hold one.
    await server.ctx.db.updateTable('user_roles').set({ tenant_id: null }).where('user_id', 'in', [user.id, guest.id]).execute();
    [orphan, orphanGuest] = [user.token, guest.token];
  });

  test('the API does not create such a user', async () => {
    const response = await server.call({
      method: 'POST',
      url: '/users',
      token: admin,
      payload: { username: `orphan-${next()}`, password: 'orphan-password', email: `orphan-${next()}@example.com`, name: 'Orphan', roles: [{ role: 'user' }] },
    });
    expectCode(response, 400, 'no_tenant_provided');
  });

  test('every verb answers forbidden_tenant, and nothing changes', async () => {
    const before = [...(await rowsOfAll(path, world.a)), ...(await rowsOfAll(path, world.b))];
    const id = world.aIds[0]!;
    const calls: Parameters<TestServer['call']>[0][] = [
      { method: 'GET', url: `${path}/count` },
      { method: 'GET', url: path },
      { method: 'GET', url: `${path}/${id}` },
      { method: 'POST', url: path, payload: sampleOf(resource).create(next()) },
      { method: 'PATCH', url: `${path}/${id}`, payload: sampleOf(resource).patch },
      { method: 'PATCH', url: path, payload: sampleOf(resource).patch },
      { method: 'DELETE', url: `${path}/${id}` },
      { method: 'DELETE', url: path, payload: [id] },
    ];
    for (const call of calls) {
      expectCode(await server.call({ ...call, token: orphan }), 403, 'forbidden_tenant');
      expectCode(await server.call({ ...call, token: orphan, tenant: world.a }), 403, 'forbidden_tenant');
      const asGuest = await server.call({ ...call, token: orphanGuest });
      expectCode(asGuest, 403, call.method === 'GET' ? 'forbidden_tenant' : 'readonly_only');
    }
    expect([...(await rowsOfAll(path, world.a)), ...(await rowsOfAll(path, world.b))]).toEqual(before);
  });
});

describe.each(memberReadOnly.map((resource) => [resource.path, resource] as const))('%s: read-only, read by members of their own tenant', (path, resource) => {
  let world: World;
  const read = (token: string, url: string, tenantHeader?: number) =>
    server.call({ method: 'GET', url: `${path}${url}`, token, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
  const idsRead = async (token: string, filter: unknown, tenantHeader?: number) => {
    const response = await read(token, `?${q('filter', filter)}`, tenantHeader);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Row[]>().map((row) => row.id);
  };
  const countRead = async (token: string, where: unknown, tenantHeader?: number) => {
    const response = await read(token, `/count?${q('where', where)}`, tenantHeader);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ count: number }>().count;
  };

  beforeAll(async () => {
    world = await buildWorld(resource);
  });

  test('a member and a guest of A read A\'s rows only, whatever the filter or the header says', async () => {
    const byId = { order: ['id ASC'] };
    for (const token of [world.userA.token, world.guestA.token]) {
      for (const header of [undefined, world.b]) {
        expect(await idsRead(token, byId, header)).toEqual(world.aIds);
        expect(await countRead(token, {}, header)).toBe(world.aIds.length);
      }
      for (const where of [{ tenant_id: world.b }, { id: { inq: world.bIds } }, { or: [{ tenant_id: world.b }, { id: { inq: world.bIds } }] }]) {
        expect(await idsRead(token, { where }), JSON.stringify(where)).toEqual([]);
        expect(await countRead(token, where), JSON.stringify(where)).toBe(0);
      }
      for (const id of world.bIds) {
        expectCode(await read(token, `/${id}`), 404, 'not_found');
        expectCode(await read(token, `/${id}`, world.b), 404, 'not_found');
      }
      expect((await read(token, `/${world.aIds[0]}`)).json<Row>().tenant_id).toBe(world.a);
    }
    expect(await idsRead(world.userB.token, byId, world.a)).toEqual(world.bIds);
  });

  test('the administrator reads every tenant without a header, and one tenant with it', async () => {
    const both = { where: { id: { inq: [...world.aIds, ...world.bIds] } }, order: ['id ASC'] };
    expect(await idsRead(admin, both)).toEqual([...world.aIds, ...world.bIds]);
    expect(await idsRead(admin, both, 0)).toEqual([...world.aIds, ...world.bIds]);
    expect(await idsRead(admin, both, world.b)).toEqual(world.bIds);
    expectCode(await read(admin, `/${world.aIds[0]}`, world.b), 404, 'not_found');
  });
});

async function rowsOfAll(path: string, tenantId: number): Promise<Row[]> {
  const response = await server.call({ method: 'GET', url: `${path}?${q('filter', { order: ['id ASC'] })}`, token: admin, tenant: tenantId });
  return response.json<Row[]>();
}

describe.each(adminReadable.map((resource) => [resource.path, resource] as const))('%s: admin-only, read by the administrator per tenant', (path) => {
  let a: number;
  let b: number;
  let userA: string;
  const aEntries: number[] = [];
  const bEntries: number[] = [];

  interface Entry {
    id: number;
    tenant_id: number | null;
  }
  const list = async (filter: unknown, tenantHeader?: number): Promise<Entry[]> => {
    const response = await server.call({ method: 'GET', url: `${path}?${q('filter', filter)}`, token: admin, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Entry[]>();
  };
  const count = async (where: unknown, tenantHeader?: number): Promise<number> => {
    const response = await server.call({ method: 'GET', url: `${path}/count?${q('where', where)}`, token: admin, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ count: number }>().count;
  };

  beforeAll(async () => {
    // Writes in two tenants leave entries in both.
    const resource = memberWritable[0];
    if (!resource) throw new Error('no member-writable tenant-owned resource to write entries with');
    const world = await buildWorld(resource);
    ({ a, b } = world);
    userA = world.userA.token;
    aEntries.push(...(await list({ where: { tenant_id: a } })).map((entry) => entry.id));
    bEntries.push(...(await list({ where: { tenant_id: b } })).map((entry) => entry.id));
    expect(aEntries.length).toBeGreaterThanOrEqual(3);
    expect(bEntries.length).toBeGreaterThanOrEqual(3);
  });

  test('with x-tenant-id A the administrator sees A\'s entries only', async () => {
    const entries = await list({ limit: 1000 }, a);
    expect(entries.length).toBe(aEntries.length);
    expect(entries.every((entry) => entry.tenant_id === a)).toBe(true);
    expect(await count({}, a)).toBe(aEntries.length);
    expect(await count({ tenant_id: b }, a)).toBe(0);
    expect(await count({ or: [{ tenant_id: b }, { id: { inq: bEntries } }] }, a)).toBe(0);
    expect(await list({ where: { id: { inq: bEntries } } }, a)).toEqual([]);
    for (const id of bEntries) {
      expectCode(await server.call({ method: 'GET', url: `${path}/${id}`, token: admin, tenant: a }), 404, 'not_found');
      expect((await server.call({ method: 'GET', url: `${path}/${id}`, token: admin, tenant: b })).statusCode).toBe(200);
    }
  });

  test('with x-tenant-id 0 or absent the administrator sees every tenant', async () => {
    const both = { id: { inq: [...aEntries, ...bEntries] } };
    expect(await count(both)).toBe(aEntries.length + bEntries.length);
    expect(await count(both, 0)).toBe(aEntries.length + bEntries.length);
    expect(await count({})).toBeGreaterThan(await count({}, a));
  });

  test('a member of A cannot read it at all, not even A\'s entries', async () => {
    expectCode(await server.call({ method: 'GET', url: path, token: userA }), 403, 'no_role_permission');
    expectCode(await server.call({ method: 'GET', url: `${path}/count`, token: userA }), 403, 'no_role_permission');
    expectCode(await server.call({ method: 'GET', url: `${path}/${aEntries[0]}`, token: userA }), 403, 'no_role_permission');
  });
});
