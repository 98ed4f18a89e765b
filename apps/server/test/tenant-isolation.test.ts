import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { q, type TestServer } from './harness.ts';
import { admin, adminReadable, buildWorld, coveredElsewhere, createCall, type ErrorBody, expectCode, memberReadOnly, memberWritable, next, notFoundCode, type Row, sampleOf, samples, seeds, server, tenantOwned, useIsolationServer, type World } from './tenant-isolation-fixtures.ts';

/**
 * The tenant isolation matrix: for every tenant-owned resource and every verb, a member of tenant A
 * can neither see nor touch tenant B's rows, whatever the filter, body or headers say.
 *
 * The matrix is built from the registry. A new tenant-owned resource that members write is covered
 * by adding its sample row below, one that members only read (its rows written by the server
 * itself) by adding its seed (tenant-isolation-fixtures.ts); without one the suite fails and says so.
 * A member without a tenant, admin-only and read-only resources, audios and plans:
 * tenant-isolation-cases.test.ts.
 */

useIsolationServer();

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
