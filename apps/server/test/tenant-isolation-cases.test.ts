import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { q, type TestServer } from './harness.ts';
import { admin, adminReadable, buildWorld, createCall, createTenant, createUser, expectCode, memberReadOnly, memberWritable, next, type Row, sampleOf, seeds, server, useIsolationServer, type World } from './tenant-isolation-fixtures.ts';

/**
 * The tenant isolation matrix, its other cases: a member whose role has no tenant, admin-only
 * resources read by the administrator per tenant, audios' sound and speech, the rows members only
 * read, and the plans' own calls. Members of A against B, and the administrator's tenant header:
 * tenant-isolation.test.ts.
 */

useIsolationServer();

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
