import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { enqueuePlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { allResources } from '../src/modules/resource-registry.ts';
import { uploadCall } from './audio-fixtures.ts';
import { q, startTestServer, type TestServer } from './harness.ts';
import { insertReport } from './sessions-helpers.ts';
import { seedTemplate } from './whatsapp-template-fixtures.ts';

/**
 * The tenant isolation matrix: for every tenant-owned resource and every verb, a member of tenant A
 * can neither see nor touch tenant B's rows, whatever the filter, body or headers say.
 *
 * The matrix is built from the registry. A new tenant-owned resource that members write is covered
 * by adding its sample row below, one that members only read (its rows written by the server
 * itself) by adding its seed; without one the suite fails and says so.
 */

interface Sample {
  /** A valid create body; n makes it unique. */
  create(n: number): Record<string, unknown>;
  /** A valid patch body that changes something visible. */
  patch: Record<string, unknown>;
  /** For rows made elsewhere than POST {path}: the call that sends the body (audios are uploaded). */
  createCall?(body: Record<string, unknown>): Parameters<TestServer['call']>[0];
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
  '/audios': {
    create: (n) => ({ name: `Isolated ${n}` }),
    patch: { name: 'changed' },
    createCall: (body) => uploadCall(body),
  },
  '/visual-plans': {
    create: (n) => ({ name: `Isolated plan ${n}`, description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/numbers': {
    create: (n) => ({ number: `+5521${String(n).padStart(8, '0')}`, provider: 'twilio', description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/saved-replies': {
    create: (n) => ({ name: `Isolated ${n}`, text: `Hello {{name}}, reply ${n}` }),
    patch: { text: 'changed' },
  },
  '/do-not-call': {
    create: (n) => ({ number: `+551192${String(n).padStart(7, '0')}`, reason: `row ${n}` }),
    patch: { reason: 'changed' },
  },
};

/** Rows of read-only resources come from the server's own code paths: a seed writes one in a tenant and answers its id. */
const seeds: Record<string, (tenantId: number, n: number) => Promise<number>> = {
  '/reports': async (tenantId, n) => (await insertReport(server.ctx, tenantId, { sessionId: `tenant-isolation-${n}` })).id,
  '/webhook-deliveries': (tenantId, n) =>
    enqueuePlanEvent(server.ctx.db, { tenantId, planId: n, url: `https://hooks.example/${n}`, event: 'session.started', payload: { n } }),
  // A template comes from Meta through a sync, stored for a WhatsApp number of the tenant.
  '/whatsapp-templates': (tenantId, n) => seedTemplate(server.ctx.db, tenantId, n),
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
// A campaign's body names a plan and a number of its own tenant, which these shared samples cannot;
// campaigns.test.ts checks that another tenant's campaigns, plans and numbers are out of reach.
const coveredElsewhere = new Set(['/campaigns']);
const memberWritable = tenantOwned.filter((resource) => !resource.readOnly && resource.write === 'member' && !coveredElsewhere.has(resource.path));
const adminReadable = tenantOwned.filter((resource) => resource.read === 'admin');
const memberReadOnly = tenantOwned.filter((resource) => resource.readOnly && resource.read === 'member');

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

/** The call that creates a row of the resource with the body. */
function createCall(resource: ResourceDefinition, body: Record<string, unknown>): Parameters<TestServer['call']>[0] {
  const sample = sampleOf(resource);
  return sample.createCall ? sample.createCall(body) : { method: 'POST', url: resource.path, payload: body };
}

/** What a missing, or another tenant's, id answers. */
const notFoundCode = (resource: ResourceDefinition) => resource.notFoundCode ?? 'not_found';

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
  const sample = sampleOf(resource);
  const [a, b] = [await createTenant(), await createTenant()];
  const [userA, guestA, userB] = [await createUser(a, 'user'), await createUser(a, 'guest'), await createUser(b, 'user')];
  const make = async (token: string) => {
    const response = await server.call({ ...createCall(resource, sample.create(next())), token });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<Row>().id;
  };
  const aIds = [await make(userA.token), await make(userA.token), await make(userA.token)];
  const bIds = [await make(userB.token), await make(userB.token), await make(userB.token)];
  return { a, b, userA, guestA, userB, aIds, bIds };
}

describe('the matrix covers every tenant-owned resource', () => {
  test('each is member-writable with a sample factory, member-read-only with a seed, or admin-only', () => {
    expect(tenantOwned.length).toBeGreaterThan(0);
    for (const resource of tenantOwned.filter((owned) => !coveredElsewhere.has(owned.path))) {
      if (memberWritable.includes(resource)) {
        expect(samples[resource.path], `add a sample-row factory for ${resource.path}`).toBeDefined();
      } else if (memberReadOnly.includes(resource)) {
        expect(seeds[resource.path], `add a seed for ${resource.path}`).toBeDefined();
      } else {
        expect(adminReadable.map((r) => r.path), `extend the matrix for ${resource.path}`).toContain(resource.path);
      }
    }
    // No stale factories either.
    expect(Object.keys(samples).sort()).toEqual(memberWritable.map((resource) => resource.path).sort());
    expect(Object.keys(seeds).sort()).toEqual(memberReadOnly.map((resource) => resource.path).sort());
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
      expectCode(await asA({ method: 'GET', url: `${path}/${id}` }), 404, notFoundCode(resource));
      expectCode(await asA({ method: 'GET', url: `${path}/${id}`, tenant: world.b }), 404, notFoundCode(resource));
      expectCode(await server.call({ method: 'GET', url: `${path}/${id}`, token: world.guestA.token }), 404, notFoundCode(resource));
    }
    const own = await asA({ method: 'GET', url: `${path}/${world.aIds[0]}` });
    expect(own.statusCode).toBe(200);
    expect(own.json<Row>().tenant_id).toBe(world.a);
  });

  test('create: the row lands in A, whatever the body or the header say', async () => {
    const withTenantField = await asA(createCall(resource, { ...sample().create(next()), tenant_id: world.b }));
    if (withTenantField.statusCode === 400) {
      expect(withTenantField.json<ErrorBody>().error.code).toBe('invalid_input');
    } else {
      expect(withTenantField.statusCode, withTenantField.body).toBe(201);
      expect(withTenantField.json<Row>().tenant_id).toBe(world.a);
    }
    const withHeader = await asA({ ...createCall(resource, sample().create(next())), tenant: world.b });
    expect(withHeader.statusCode, withHeader.body).toBe(201);
    const created = withHeader.json<Row>();
    expect(created.tenant_id).toBe(world.a);
    expect(await idsOf(world.a)).toContain(created.id);
  });

  test('patch and put: B\'s ids are not found; tenant_id in the body cannot move A\'s row', async () => {
    for (const method of ['PATCH', 'PUT'] as const) {
      for (const id of world.bIds) {
        expectCode(await asA({ method, url: `${path}/${id}`, payload: sample().patch }), 404, notFoundCode(resource));
        expectCode(await asA({ method, url: `${path}/${id}`, tenant: world.b, payload: sample().patch }), 404, notFoundCode(resource));
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
      expectCode(await asA({ method: 'DELETE', url: `${path}/${id}` }), 404, notFoundCode(resource));
      expectCode(await asA({ method: 'DELETE', url: `${path}/${id}`, tenant: world.b }), 404, notFoundCode(resource));
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
    expectCode(await server.call({ ...createCall(resource, sampleOf(resource).create(next())), token: admin }), 400, 'no_tenant_provided');
    expectCode(await server.call({ ...createCall(resource, sampleOf(resource).create(next())), token: admin, tenant: 0 }), 400, 'no_tenant_provided');
    expect(await countAll()).toBe(before);
  });

  test('x-tenant-id B: the administrator works in B only', async () => {
    const created = await server.call({ ...createCall(resource, sampleOf(resource).create(next())), token: admin, tenant: world.b });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<Row>().tenant_id).toBe(world.b);
    const listed = await server.call({ method: 'GET', url: `${path}?${q('filter', { order: ['id ASC'] })}`, token: admin, tenant: world.b });
    expect(listed.json<Row[]>().map((row) => row.id)).toEqual([...world.bIds, created.json<Row>().id]);
    expectCode(await server.call({ method: 'GET', url: `${path}/${world.aIds[0]}`, token: admin, tenant: world.b }), 404, notFoundCode(resource));
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
      createCall(resource, sampleOf(resource).create(next())),
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

describe('/audios: the sound and text to speech stay in the tenant too', () => {
  let world: World;
  const audiosResource = () => memberWritable.find((resource) => resource.path === '/audios')!;
  beforeAll(async () => {
    world = await buildWorld(audiosResource());
  });

  test('a member of A gets audio_not_found for B\'s sound, original or telephony, whatever the header', async () => {
    for (const id of world.bIds) {
      for (const url of [`/audios/${id}/file`, `/audios/${id}/file?format=telephony`]) {
        expectCode(await server.call({ method: 'GET', url, token: world.userA.token }), 404, 'audio_not_found');
        expectCode(await server.call({ method: 'GET', url, token: world.userA.token, tenant: world.b }), 404, 'audio_not_found');
        expectCode(await server.call({ method: 'GET', url, token: world.guestA.token }), 404, 'audio_not_found');
      }
    }
    // Nothing was converted for them.
    const copies = await server.ctx.db.selectFrom('audio_data').select('audio_id').where('audio_id', 'in', world.bIds).where('variant', '=', 'telephony').execute();
    expect(copies).toEqual([]);
    expect((await server.call({ method: 'GET', url: `/audios/${world.bIds[0]}/file`, token: world.userB.token })).statusCode).toBe(200);
    expect((await server.call({ method: 'GET', url: `/audios/${world.aIds[0]}/file`, token: world.guestA.token })).statusCode).toBe(200);
    expect((await server.call({ method: 'GET', url: `/audios/${world.bIds[0]}/file`, token: admin, tenant: world.b })).statusCode).toBe(200);
    expectCode(await server.call({ method: 'GET', url: `/audios/${world.bIds[0]}/file`, token: admin, tenant: world.a }), 404, 'audio_not_found');
  });

  test('text to speech lands in A whatever the header says; guests and the all-tenants view may not start one', async () => {
    const payload = { name: 'Isolated speech', text: 'Hello.', language: 'en-us' };
    const created = await server.call({ method: 'POST', url: '/audios/tts', token: world.userA.token, tenant: world.b, payload });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<Row>().tenant_id).toBe(world.a);
    expectCode(await server.call({ method: 'POST', url: '/audios/tts', token: world.guestA.token, payload }), 403, 'readonly_only');
    expectCode(await server.call({ method: 'POST', url: '/audios/tts', token: admin, payload }), 400, 'no_tenant_provided');
    const asAdmin = await server.call({ method: 'POST', url: '/audios/tts', token: admin, tenant: world.b, payload });
    expect(asAdmin.json<Row>().tenant_id).toBe(world.b);
  });
});

describe.each(memberReadOnly.map((resource) => [resource.path, resource] as const))('%s: read-only, each member reads its own tenant\'s rows', (path) => {
  let a: number;
  let b: number;
  let userA: string;
  let guestA: string;
  let userB: string;
  let orphan: string;
  const aIds: number[] = [];
  const bIds: number[] = [];

  const read = async (token: string, url: string, tenantHeader?: number) => {
    const response = await server.call({ method: 'GET', url, token, ...(tenantHeader !== undefined && { tenant: tenantHeader }) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<unknown>();
  };
  const listIds = async (token: string, filter: unknown, tenantHeader?: number) =>
    ((await read(token, `${path}?${q('filter', filter)}`, tenantHeader)) as Row[]).map((row) => row.id);
  const count = async (token: string, where: unknown, tenantHeader?: number) =>
    ((await read(token, `${path}/count?${q('where', where)}`, tenantHeader)) as { count: number }).count;

  beforeAll(async () => {
    const seed = seeds[path]!;
    [a, b] = [await createTenant(), await createTenant()];
    [userA, guestA, userB] = [(await createUser(a, 'user')).token, (await createUser(a, 'guest')).token, (await createUser(b, 'user')).token];
    for (let i = 0; i < 3; i++) aIds.push(await seed(a, next()));
    for (let i = 0; i < 3; i++) bIds.push(await seed(b, next()));
    const stray = await createUser(a, 'user');
    // Older data may hold a non-admin role without a tenant (see "a member whose role has no tenant").
    await server.ctx.db.updateTable('user_roles').set({ tenant_id: null }).where('user_id', '=', stray.id).execute();
    orphan = stray.token;
  });

  test('members and guests of A: count, list and get see A\'s rows only, whatever the filter or the header says', async () => {
    const reachingForB = [{ tenant_id: b }, { id: { inq: bIds } }, { or: [{ tenant_id: b }, { id: { inq: bIds } }] }, { and: [{ tenant_id: { neq: a } }] }];
    for (const token of [userA, guestA]) {
      expect(await listIds(token, { order: ['id ASC'] })).toEqual(aIds);
      expect(await listIds(token, { order: ['id ASC'] }, b)).toEqual(aIds);
      expect(await count(token, {})).toBe(aIds.length);
      expect(await count(token, {}, b)).toBe(aIds.length);
      for (const where of reachingForB) {
        expect(await listIds(token, { where }), JSON.stringify(where)).toEqual([]);
        expect(await count(token, where), JSON.stringify(where)).toBe(0);
      }
      for (const id of bIds) {
        expectCode(await server.call({ method: 'GET', url: `${path}/${id}`, token }), 404, 'not_found');
        expectCode(await server.call({ method: 'GET', url: `${path}/${id}`, token, tenant: b }), 404, 'not_found');
      }
      expect(((await read(token, `${path}/${aIds[0]}`)) as Row).tenant_id).toBe(a);
    }
  });

  test('B\'s member, the other way round, sees B\'s rows only', async () => {
    expect(await listIds(userB, { order: ['id ASC'] }, a)).toEqual(bIds);
    expectCode(await server.call({ method: 'GET', url: `${path}/${aIds[0]}`, token: userB }), 404, 'not_found');
  });

  test('the administrator reads one tenant with x-tenant-id, every tenant without it', async () => {
    expect(await listIds(admin, { order: ['id ASC'] }, a)).toEqual(aIds);
    expect(await listIds(admin, { where: { id: { inq: [...aIds, ...bIds] } }, order: ['id ASC'] })).toEqual([...aIds, ...bIds]);
    expect(await count(admin, { id: { inq: [...aIds, ...bIds] } }, 0)).toBe(aIds.length + bIds.length);
    expectCode(await server.call({ method: 'GET', url: `${path}/${bIds[0]}`, token: admin, tenant: a }), 404, 'not_found');
  });

  test('a member whose role has no tenant reads nothing: forbidden_tenant', async () => {
    for (const url of [path, `${path}/count`, `${path}/${aIds[0]}`]) {
      expectCode(await server.call({ method: 'GET', url, token: orphan }), 403, 'forbidden_tenant');
    }
  });
});

describe('/visual-plans: the plan calls beside the generic ones', () => {
  let a: number;
  let b: number;
  let userA: string;
  let userB: string;
  let orphan: string;
  let bPlan: number;
  let bDestination: number;
  /** B's plan as B sees it: document, versions and export. */
  let bState: unknown[];
  const greeting = { format_version: 1, nodes: [{ id: 'start', type: 'start' }, { id: 'end', type: 'hangup' }], edges: [{ id: 'e', source: 'start', source_exit: 'next', target: 'end' }] };
  const stateOfB = async () =>
    Promise.all(
      [`/visual-plans/${bPlan}/document`, `/visual-plans/${bPlan}/versions`, `/visual-plans/${bPlan}/export`, '/visual-plans?filter={"order":["id ASC"]}'].map(async (url) =>
        (await server.call({ method: 'GET', url, token: userB })).json<unknown>(),
      ),
    );
  /** Every plan call on plan `id`, reads and writes, with valid bodies. */
  const planCalls = (id: number): Parameters<TestServer['call']>[0][] => [
    { method: 'GET', url: `/visual-plans/${id}/document` },
    { method: 'PUT', url: `/visual-plans/${id}/document`, payload: { base_version: 2, ...greeting } },
    { method: 'POST', url: `/visual-plans/${id}/publish`, payload: { base_version: 2 } },
    { method: 'GET', url: `/visual-plans/${id}/versions` },
    { method: 'GET', url: `/visual-plans/${id}/versions/2` },
    { method: 'POST', url: `/visual-plans/${id}/versions/2/restore`, payload: { base_version: 2 } },
    { method: 'POST', url: `/visual-plans/${id}/save-as`, payload: { name: `Taken from B ${next()}`, ...greeting } },
    { method: 'POST', url: `/visual-plans/${id}/duplicate`, payload: { name: `Copied from B ${next()}` } },
    { method: 'GET', url: `/visual-plans/${id}/export` },
    { method: 'GET', url: `/visual-plans/${id}/export?version=2` },
  ];

  beforeAll(async () => {
    [a, b] = [await createTenant(), await createTenant()];
    [userA, userB] = [(await createUser(a, 'user')).token, (await createUser(b, 'user')).token];
    const stray = await createUser(a, 'user');
    await server.ctx.db.updateTable('user_roles').set({ tenant_id: null }).where('user_id', '=', stray.id).execute();
    orphan = stray.token;
    const destination = await server.call({ method: 'POST', url: '/destinations', token: userB, payload: { name: 'B desk', kind: 'voice', uri: `sip:b-${next()}@pbx.example` } });
    bDestination = destination.json<Row>().id;
    bPlan = (await server.call({ method: 'POST', url: '/visual-plans', token: userB, payload: { name: 'B plan' } })).json<Row>().id;
    const saved = await server.call({ method: 'PUT', url: `/visual-plans/${bPlan}/document`, token: userB, payload: { base_version: 1, ...greeting } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await server.call({ method: 'POST', url: `/visual-plans/${bPlan}/publish`, token: userB, payload: { base_version: 2 } })).statusCode).toBe(200);
    bState = await stateOfB();
  });
  afterEach(async () => {
    expect(await stateOfB()).toEqual(bState);
  });

  test('every call on B\'s plan is not found for A\'s member, with or without x-tenant-id B, and A gains no plan', async () => {
    const countA = async () => (await server.call({ method: 'GET', url: '/visual-plans/count', token: userA })).json<{ count: number }>().count;
    const before = await countA();
    for (const call of planCalls(bPlan)) {
      expectCode(await server.call({ ...call, token: userA }), 404, 'not_found');
      expectCode(await server.call({ ...call, token: userA, tenant: b }), 404, 'not_found');
    }
    expect(await countA()).toBe(before);
  });

  test('a member whose role has no tenant gets forbidden_tenant from every call', async () => {
    for (const call of [...planCalls(bPlan), { method: 'POST' as const, url: '/visual-plans/import', payload: { name: 'Orphan', ...greeting } }]) {
      expectCode(await server.call({ ...call, token: orphan }), 403, 'forbidden_tenant');
    }
  });

  test('a plan of A cannot name B\'s destination or plan, and an import lands in A whatever the header says', async () => {
    const referring = {
      format_version: 1,
      nodes: [{ id: 'start', type: 'start' }, { id: 'desk', type: 'destination', data: { destination_id: bDestination } }, { id: 'other', type: 'call_plan', data: { plan_id: bPlan } }],
      edges: [{ id: 'e', source: 'start', source_exit: 'next', target: 'desk' }, { id: 'f', source: 'desk', source_exit: 'busy', target: 'other' }],
    };
    const refused = await server.call({ method: 'POST', url: '/visual-plans/import', token: userA, tenant: b, payload: { name: `Reaching ${next()}`, ...referring } });
    expectCode(refused, 400, 'invalid_plan');
    expect(refused.json<{ error: { details: { node_id: string; code: string }[] } }>().error.details.map(({ node_id, code }) => [node_id, code])).toEqual([
      ['desk', 'reference_not_found'],
      ['other', 'reference_not_found'],
    ]);
    const imported = await server.call({ method: 'POST', url: '/visual-plans/import', token: userA, tenant: b, payload: { name: `Landing ${next()}`, ...greeting } });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json<Row>().tenant_id).toBe(a);
    // B's records still cannot be removed by A, and are not held by A's plans either.
    expectCode(await server.call({ method: 'DELETE', url: `/destinations/${bDestination}`, token: userA }), 404, 'not_found');
  });
});
