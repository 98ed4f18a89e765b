import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { q, startTestServer, type TestServer } from './harness.ts';

/**
 * The filter language of spec section 7 against a real database (SQLite and PostgreSQL): exact
 * result sets for every operator, ordering and paging, count, bulk patch and bulk delete, and the
 * 400 answers for filters that cannot be run.
 */

interface Destination {
  id: number;
  tenant_id: number;
  created_time: string;
  updated_time: string;
  name: string;
  kind: 'voice' | 'chat';
  uri: string;
  description: string;
}
interface ErrorBody {
  error: { statusCode: number; name: string; message: string; code: string; details?: { path: string; message: string }[] };
}
type Seed = [name: string, kind: 'voice' | 'chat', uri: string, description: string];

// Twenty rows; row i (1-based) is created on 2024-01-(21 - i) at noon UTC, so date order is the
// reverse of name order and of id order.
const SEED: Seed[] = [
  ['Alpha', 'voice', 'sip:alpha@pbx.example', 'main line'],
  ['Bravo', 'voice', 'sip:bravo@pbx.example', 'Main backup'],
  ['Charlie', 'chat', 'https://chat.example/charlie', ''],
  ['Delta', 'voice', 'tel:+5511999990004', '100% uptime'],
  ['Echo', 'chat', 'https://chat.example/echo', 'echo_bot'],
  ['Foxtrot', 'voice', 'sip:foxtrot@pbx.example', 'night shift'],
  ['Golf', 'chat', 'https://chat.example/golf', ''],
  ['Hotel', 'voice', 'sip:hotel@pbx.example', 'lobby'],
  ['India', 'voice', 'tel:+5511999990009', 'Night Shift'],
  ['Juliett', 'chat', 'https://chat.example/juliett', 'echo bot'],
  ['Kilo', 'voice', 'sip:kilo@pbx.example', ''],
  ['Lima', 'chat', 'https://chat.example/lima', 'back\\slash'],
  ['Mike', 'voice', 'sip:mike@pbx.example', `O'Brien "quoted"`],
  ['November', 'voice', 'sip:november@pbx.example', 'main line'],
  ['Oscar', 'chat', 'https://chat.example/oscar', '50%'],
  ['Papa', 'voice', 'tel:+5511999990016', ''],
  ['Quebec', 'chat', 'https://chat.example/quebec', 'ação'],
  ['Romeo', 'voice', 'sip:romeo@pbx.example', 'MAIN LINE'],
  ['Sierra', 'voice', 'sip:sierra@pbx.example', 'path C:\\'],
  ['Tango', 'chat', 'https://chat.example/tango', ''],
];
const ALL = SEED.map(([name]) => name);
const VOICE = SEED.filter(([, kind]) => kind === 'voice').map(([name]) => name);
const CHAT = SEED.filter(([, kind]) => kind === 'chat').map(([name]) => name);
const createdTime = (index: number): string => `2024-01-${String(21 - (index + 1)).padStart(2, '0')}T12:00:00.000Z`;

let server: TestServer;
let admin: string;
/** A user (role user) of the tenant holding the seed. */
let member: string;
let tenant: number;
let otherTenant: number;
const ids = new Map<string, number>();
const id = (name: string): number => ids.get(name) ?? Number.NaN;

async function createTenant(name: string): Promise<number> {
  const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

async function createUser(username: string, tenantId: number): Promise<string> {
  const password = `${username}-password-1`;
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role: 'user', tenant_id: tenantId }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return server.login(username, password);
}

async function createRow(tenantId: number, [name, kind, uri, description]: Seed): Promise<Destination> {
  const response = await server.call({
    method: 'POST',
    url: '/destinations',
    token: admin,
    tenant: tenantId,
    payload: { name, kind, uri, description },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Destination>();
}

const list = async (filter: unknown, token = member): Promise<Destination[]> => {
  const query = filter === undefined ? '' : `?${q('filter', filter)}`;
  const response = await server.call({ method: 'GET', url: `/destinations${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Destination[]>();
};
/** Names matching a where clause, in name order. */
const names = async (where: unknown): Promise<string[]> => (await list({ where, order: ['name ASC'] })).map((row) => row.name);
const count = async (where: unknown, token = member): Promise<number> => {
  const response = await server.call({ method: 'GET', url: `/destinations/count?${q('where', where)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ count: number }>();
  expect(Object.keys(body)).toEqual(['count']);
  return body.count;
};
/** Checks a where clause against the list and the count endpoint at once. */
async function expectMatches(where: unknown, expected: string[]): Promise<void> {
  expect(await names(where), JSON.stringify(where)).toEqual([...expected].sort());
  expect(await count(where), JSON.stringify(where)).toBe(expected.length);
}
/** The seed rows whose description satisfies a predicate. */
const describedBy = (predicate: (description: string) => boolean): string[] =>
  SEED.filter(([, , , description]) => predicate(description)).map(([name]) => name);

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  tenant = await createTenant('filters');
  otherTenant = await createTenant('filters-other');
  member = await createUser('filter-user', tenant);
  for (const [index, seed] of SEED.entries()) {
    const row = await createRow(tenant, seed);
    ids.set(row.name, row.id);
    await server.ctx.db.updateTable('destinations').set({ created_time: createdTime(index) }).where('id', '=', row.id).execute();
  }
  // Rows of another tenant, one with a name that also exists in the seed: no result may include them.
  await createRow(otherTenant, ['Alpha', 'voice', 'sip:alpha@pbx.example', 'main line']);
  await createRow(otherTenant, ['Zulu', 'chat', 'https://chat.example/zulu', '']);
});
afterAll(() => server.close());

describe('comparison operators', () => {
  test('eq, and the {field: value} shorthand, compare exactly (case matters)', async () => {
    await expectMatches({ kind: { eq: 'chat' } }, CHAT);
    await expectMatches({ kind: 'voice' }, VOICE);
    await expectMatches({ name: 'Alpha' }, ['Alpha']);
    await expectMatches({ name: 'alpha' }, []);
    await expectMatches({ description: `O'Brien "quoted"` }, ['Mike']);
    await expectMatches({ description: 'ação' }, ['Quebec']);
    // Several fields in one object must all hold.
    await expectMatches({ kind: 'voice', description: 'main line' }, ['Alpha', 'November']);
    // Text holding a number is read as one for an integer field.
    await expectMatches({ id: String(id('Golf')) }, ['Golf']);
  });

  test('neq', async () => {
    await expectMatches({ kind: { neq: 'chat' } }, VOICE);
    await expectMatches({ description: { neq: '' } }, describedBy((d) => d !== ''));
    await expectMatches({ name: { neq: 'Nobody' } }, ALL);
  });

  test('lt, gt, lte and gte on text and on ids', async () => {
    await expectMatches({ name: { lt: 'Delta' } }, ['Alpha', 'Bravo', 'Charlie']);
    await expectMatches({ name: { lte: 'Delta' } }, ['Alpha', 'Bravo', 'Charlie', 'Delta']);
    await expectMatches({ name: { gt: 'Romeo' } }, ['Sierra', 'Tango']);
    await expectMatches({ name: { gte: 'Romeo' } }, ['Romeo', 'Sierra', 'Tango']);
    await expectMatches({ id: { gt: id('Quebec') } }, ['Romeo', 'Sierra', 'Tango']);
    await expectMatches({ id: { lte: id('Charlie') } }, ['Alpha', 'Bravo', 'Charlie']);
    // Two operators on one field are both required.
    await expectMatches({ id: { gte: id('Echo'), lt: id('Hotel') } }, ['Echo', 'Foxtrot', 'Golf']);
  });

  test('between includes both ends', async () => {
    await expectMatches({ id: { between: [id('Delta'), id('Golf')] } }, ['Delta', 'Echo', 'Foxtrot', 'Golf']);
    await expectMatches({ name: { between: ['Bravo', 'Echo'] } }, ['Bravo', 'Charlie', 'Delta', 'Echo']);
    await expectMatches({ id: { between: [id('Kilo'), id('Kilo')] } }, ['Kilo']);
    // Bounds the wrong way round select nothing.
    await expectMatches({ id: { between: [id('Golf'), id('Delta')] } }, []);
  });

  test('inq and nin', async () => {
    // Zulu exists only in the other tenant.
    await expectMatches({ name: { inq: ['Alpha', 'Tango', 'Zulu'] } }, ['Alpha', 'Tango']);
    await expectMatches({ id: { inq: [id('Bravo'), String(id('Kilo'))] } }, ['Bravo', 'Kilo']);
    await expectMatches(
      { kind: 'chat', name: { nin: ['Echo', 'Golf'] } },
      CHAT.filter((n) => n !== 'Echo' && n !== 'Golf'),
    );
    await expectMatches({ name: { inq: [] } }, []);
    await expectMatches({ name: { nin: [] } }, ALL);
  });

  test('null equality: eq null is IS NULL, neq null is IS NOT NULL', async () => {
    await expectMatches({ description: null }, []);
    await expectMatches({ description: { eq: null } }, []);
    await expectMatches({ description: { neq: null } }, ALL);
    // The audit log has a nullable tenant: writes to users and settings belong to no tenant.
    const audit = async (where: unknown) => {
      const response = await server.call({ method: 'GET', url: `/audit/count?${q('where', where)}`, token: admin });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ count: number }>().count;
    };
    const withoutTenant = await audit({ tenant_id: null });
    const withTenant = await audit({ tenant_id: { neq: null } });
    expect(withoutTenant).toBeGreaterThan(0); // the user created in beforeAll
    expect(withTenant).toBeGreaterThanOrEqual(SEED.length);
    expect(withoutTenant + withTenant).toBe(await audit({}));
    const rows = await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { tenant_id: null } })}`, token: admin });
    const entries = rows.json<{ tenant_id: number | null; entity: string }[]>();
    expect(entries).toHaveLength(withoutTenant);
    expect(entries.every((entry) => entry.tenant_id === null)).toBe(true);
    expect(entries.map((entry) => entry.entity)).toContain('user');
  });
});

describe('like and nlike', () => {
  test('% matches any run of characters, ignoring case', async () => {
    await expectMatches({ name: { like: 'a%' } }, ['Alpha']);
    await expectMatches({ name: { like: 'A%' } }, ['Alpha']);
    await expectMatches({ name: { like: '%ALPHA%' } }, ['Alpha']);
    await expectMatches({ description: { like: 'main%' } }, ['Alpha', 'Bravo', 'November', 'Romeo']);
    await expectMatches({ description: { like: '%SHIFT' } }, ['Foxtrot', 'India']);
    await expectMatches(
      { uri: { like: 'sip:%@pbx.example' } },
      ['Alpha', 'Bravo', 'Foxtrot', 'Hotel', 'Kilo', 'Mike', 'November', 'Romeo', 'Sierra'],
    );
    await expectMatches({ name: { like: '%' } }, ALL);
  });

  test('_ matches exactly one character, multi-byte ones included', async () => {
    await expectMatches({ name: { like: 'Gol_' } }, ['Golf']);
    await expectMatches({ name: { like: '_OLF' } }, ['Golf']);
    await expectMatches({ name: { like: 'Go_' } }, []);
    await expectMatches({ description: { like: 'a__o' } }, ['Quebec']);
    // Unescaped, _ matches the underscore and the space alike.
    await expectMatches({ description: { like: 'echo_bot' } }, ['Echo', 'Juliett']);
  });

  test('backslash escapes % and _, and a backslash', async () => {
    await expectMatches({ description: { like: 'echo\\_bot' } }, ['Echo']);
    await expectMatches({ description: { like: '%\\%%' } }, ['Delta', 'Oscar']);
    await expectMatches({ description: { like: '%0\\%' } }, ['Oscar']);
    await expectMatches({ description: { like: 'back\\\\slash' } }, ['Lima']);
    await expectMatches({ description: { like: '%\\\\%' } }, ['Lima', 'Sierra']);
    // A lone backslash closing the pattern stands for itself (PostgreSQL used to fail with a 500).
    await expectMatches({ description: { like: '%C:\\' } }, ['Sierra']);
    await expectMatches({ description: { nlike: '%\\' } }, ALL.filter((n) => n !== 'Sierra'));
  });

  test('quotes in patterns are data, not SQL', async () => {
    await expectMatches({ description: { like: "%o'brien%" } }, ['Mike']);
    await expectMatches({ description: { like: '%"QUOTED"' } }, ['Mike']);
    await expectMatches({ name: { like: "%' OR '1'='1" } }, []);
  });

  test('nlike is the complement of like', async () => {
    await expectMatches({ description: { nlike: '%shift%' } }, ALL.filter((n) => n !== 'Foxtrot' && n !== 'India'));
    const withO = ['Bravo', 'Echo', 'Foxtrot', 'Golf', 'Hotel', 'Kilo', 'November', 'Oscar', 'Romeo', 'Tango'];
    await expectMatches({ name: { like: '%O%' } }, withO);
    await expectMatches({ name: { nlike: '%o%' } }, ALL.filter((n) => !withO.includes(n)));
  });
});

describe('and, or and nesting', () => {
  test('nested and/or', async () => {
    await expectMatches({ or: [{ and: [{ kind: 'chat' }, { name: { lt: 'H' } }] }, { name: 'Tango' }] }, [
      'Charlie',
      'Echo',
      'Golf',
      'Tango',
    ]);
    await expectMatches(
      {
        and: [
          { or: [{ description: { like: '%line%' } }, { description: { like: '%shift%' } }] },
          { kind: 'voice' },
          { name: { nin: ['Romeo'] } },
        ],
      },
      ['Alpha', 'Foxtrot', 'India', 'November'],
    );
    // or beside a field: both must hold.
    await expectMatches({ kind: 'chat', or: [{ name: 'Echo' }, { name: 'Alpha' }] }, ['Echo']);
  });

  test('an empty clause matches every row, inside and and inside or', async () => {
    await expectMatches({}, ALL);
    await expectMatches({ and: [{ name: 'Alpha' }, {}] }, ['Alpha']);
    await expectMatches({ or: [{ name: 'Alpha' }, {}] }, ALL);
  });

  test('twelve levels of nesting are accepted', async () => {
    const nest = (levels: number, leaf: unknown): unknown =>
      levels === 1 ? leaf : { [levels % 2 === 0 ? 'and' : 'or']: [nest(levels - 1, leaf)] };
    await expectMatches(nest(12, { name: 'Alpha' }), ['Alpha']);
  });

  test('1000 clauses in an or or an and are accepted on both databases', async () => {
    const everyId = Array.from({ length: 1000 }, (_, i) => ({ id: i + 1 }));
    await expectMatches({ or: everyId }, ALL);
    await expectMatches({ and: everyId.map(({ id: value }) => ({ id: { neq: value } })) }, []);
    // Nested wide clauses: (or of 1000) inside (and of 2) inside an or.
    await expectMatches({ or: [{ and: [{ or: everyId }, { kind: 'chat' }] }, { name: 'Alpha' }] }, [...CHAT, 'Alpha']);
  });
});

describe('order, limit and skip', () => {
  const orderOf = async (filter: unknown) => (await list(filter)).map((row) => row.name);

  test('order is a list of "field ASC|DESC" or a single string', async () => {
    expect(await orderOf({ order: ['kind DESC', 'name ASC'] })).toEqual([...[...VOICE].sort(), ...[...CHAT].sort()]);
    expect(await orderOf({ order: 'name DESC' })).toEqual([...ALL].sort().reverse());
    expect(await orderOf({ order: ['name desc'] })).toEqual([...ALL].sort().reverse());
    // Rows were dated in reverse: Alpha is the newest.
    expect(await orderOf({ order: ['created_time ASC'] })).toEqual([...ALL].reverse());
    // Without a direction, ascending.
    expect(await orderOf({ order: ['created_time'] })).toEqual([...ALL].reverse());
  });

  test('ties are broken by id, so pages never overlap', async () => {
    expect(await orderOf({ order: ['kind ASC'] })).toEqual([...CHAT, ...VOICE]);
    const seen: string[] = [];
    for (let skip = 0; skip < ALL.length; skip += 7) seen.push(...(await orderOf({ order: ['kind DESC'], limit: 7, skip })));
    expect(seen).toEqual([...VOICE, ...CHAT]);
  });

  test('without an order the list is by name', async () => {
    expect(await orderOf({})).toEqual([...ALL].sort());
    expect(await orderOf(undefined)).toEqual([...ALL].sort());
  });

  test('limit and skip page through the list', async () => {
    expect(await orderOf({ order: ['name ASC'], limit: 5, skip: 5 })).toEqual(['Foxtrot', 'Golf', 'Hotel', 'India', 'Juliett']);
    expect(await orderOf({ limit: 3 })).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await orderOf({ skip: 18 })).toEqual(['Sierra', 'Tango']);
    expect(await orderOf({ offset: 18 })).toEqual(['Sierra', 'Tango']);
    expect(await orderOf({ skip: 20 })).toEqual([]);
    expect(await orderOf({ limit: 0 })).toEqual([]);
    expect(await orderOf({ limit: '2', skip: '1' })).toEqual(['Bravo', 'Charlie']);
    expect(await orderOf({ where: { kind: 'chat' }, order: ['name DESC'], limit: 2, skip: 1 })).toEqual(['Quebec', 'Oscar']);
  });
});

describe('count', () => {
  test('counts the rows of the tenant, with or without a where', async () => {
    const all = await server.call({ method: 'GET', url: '/destinations/count', token: member });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual({ count: SEED.length });
    expect(await count({ kind: 'chat' })).toBe(CHAT.length);
    expect(await count({ name: { like: '%o%' }, kind: 'voice' })).toBe(6);
    expect(await count({ name: 'Zulu' })).toBe(0);
    // The admin sees both tenants without a tenant header.
    expect(await count({ name: 'Alpha' }, admin)).toBe(2);
  });
});

describe('dates', () => {
  test('created_time compares with ISO strings, with or without a time or an offset', async () => {
    await expectMatches({ created_time: { gt: '2024-01-15T12:00:00.000Z' } }, ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    await expectMatches({ created_time: { gte: '2024-01-16' } }, ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    await expectMatches({ created_time: { lt: '2024-01-02' } }, ['Tango']);
    // Between includes both ends: the 3rd from midnight, the 5th up to noon exactly.
    await expectMatches({ created_time: { between: ['2024-01-03', '2024-01-05T12:00:00Z'] } }, ['Papa', 'Quebec', 'Romeo']);
    await expectMatches({ created_time: { between: ['2024-01-03', '2024-01-05T11:59:59Z'] } }, ['Quebec', 'Romeo']);
    // 09:00 at UTC-3 is noon UTC on the 10th.
    await expectMatches({ created_time: '2024-01-10T09:00:00-03:00' }, ['Kilo']);
    // Milliseconds since the epoch are dates too.
    await expectMatches({ created_time: { gte: Date.UTC(2024, 0, 19, 12) } }, ['Alpha', 'Bravo']);
    await expectMatches({ created_time: { inq: ['2024-01-20T12:00:00Z', '2024-01-01T12:00:00.000Z'] } }, ['Alpha', 'Tango']);
  });

  test('a time without a zone is UTC, like stored times, whatever the server\'s own zone', async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/Sao_Paulo';
    try {
      expect(new Date(2024, 0, 10, 12).toISOString()).toBe('2024-01-10T15:00:00.000Z'); // the zone took effect
      await expectMatches({ created_time: '2024-01-10T12:00' }, ['Kilo']);
      await expectMatches({ created_time: '2024-01-10 12:00:00' }, ['Kilo']);
      await expectMatches({ created_time: { between: ['2024-01-10T00:00', '2024-01-11T11:59:59.999'] } }, ['Kilo']);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  test('updated_time is set on write and filterable', async () => {
    const rows = await list({ order: ['updated_time DESC'], limit: 1 });
    expect(rows).toHaveLength(1);
    const newest = rows[0]!.updated_time;
    // Rows written one after another can share a millisecond: every row written at the newest time.
    const writtenLast = (await list({ order: ['name ASC'] })).filter((row) => row.updated_time === newest).map((row) => row.name);
    expect(writtenLast).toContain(rows[0]!.name);
    await expectMatches({ updated_time: { gte: newest } }, writtenLast);
    await expectMatches({ updated_time: { gt: '2000-01-01' } }, ALL);
  });
});

describe('bulk patch and bulk delete', () => {
  let seq = 0;
  /** A fresh tenant with its own rows, so that these writes leave the seed alone. */
  async function scratch(rows: Seed[]): Promise<{ tenantId: number; token: string; rows: Destination[] }> {
    seq += 1;
    const tenantId = await createTenant(`scratch-${seq}`);
    const token = await createUser(`scratch-user-${seq}`, tenantId);
    const created: Destination[] = [];
    for (const row of rows) created.push(await createRow(tenantId, row));
    return { tenantId, token, rows: created };
  }
  const rowsOf = async (token: string): Promise<Destination[]> => list({ order: ['id ASC'] }, token);
  const seedSnapshot = () => list({ order: ['id ASC'] });
  const five: Seed[] = [
    ['one', 'chat', 'https://chat.example/1', 'a'],
    ['two', 'voice', 'sip:two@pbx.example', 'b'],
    ['three', 'chat', 'https://chat.example/3', 'c'],
    ['four', 'voice', 'sip:four@pbx.example', 'd'],
    ['five', 'chat', 'https://chat.example/5', 'e'],
  ];

  test('PATCH with a where answers {count} and changes only the matching rows', async () => {
    const { token, rows } = await scratch(five);
    const seedBefore = await seedSnapshot();
    const response = await server.call({
      method: 'PATCH',
      url: `/destinations?${q('where', { kind: 'chat', name: { neq: 'five' } })}`,
      token,
      payload: { description: 'patched' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ count: 2 });
    const after = await rowsOf(token);
    for (const [index, row] of after.entries()) {
      const before = rows[index]!;
      if (row.name === 'one' || row.name === 'three') {
        expect(row).toMatchObject({ ...before, description: 'patched', updated_time: expect.any(String) });
        expect(row.updated_time >= before.updated_time).toBe(true);
      } else {
        expect(row).toEqual(before);
      }
    }
    expect(await seedSnapshot()).toEqual(seedBefore);
  });

  test('a bulk patch matching nothing answers count 0; without a where it patches the whole tenant only', async () => {
    const { token, rows } = await scratch(five);
    const seedBefore = await seedSnapshot();
    const none = await server.call({
      method: 'PATCH',
      url: `/destinations?${q('where', { name: 'nobody' })}`,
      token,
      payload: { description: 'x' },
    });
    expect(none.json()).toEqual({ count: 0 });
    expect(await rowsOf(token)).toEqual(rows);
    const all = await server.call({ method: 'PATCH', url: '/destinations', token, payload: { description: 'everything' } });
    expect(all.json()).toEqual({ count: 5 });
    expect((await rowsOf(token)).map((row) => row.description)).toEqual(Array(5).fill('everything'));
    expect(await seedSnapshot()).toEqual(seedBefore);
  });

  test('a bulk patch is all or nothing: one invalid row leaves every row as it was', async () => {
    // Turning every row into a chat destination is fine for chats but leaves voices with a SIP URI.
    const { token, rows } = await scratch(five);
    const response = await server.call({ method: 'PATCH', url: '/destinations', token, payload: { kind: 'chat' } });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json<ErrorBody>().error.code).toBe('invalid_input');
    expect(await rowsOf(token)).toEqual(rows);
  });

  test('DELETE with a JSON array of ids, or with {"ids": [...]}, answers {count}', async () => {
    const { token, rows } = await scratch(five);
    const seedBefore = await seedSnapshot();
    const [one, two, three, four, five_] = rows.map((row) => row.id) as [number, number, number, number, number];
    const first = await server.call({ method: 'DELETE', url: '/destinations', token, payload: [one, three, 2_000_000_000] });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ count: 2 });
    expect((await rowsOf(token)).map((row) => row.id)).toEqual([two, four, five_]);
    const second = await server.call({ method: 'DELETE', url: '/destinations', token, payload: { ids: [four, one] } });
    expect(second.json()).toEqual({ count: 1 });
    expect((await rowsOf(token)).map((row) => row.id)).toEqual([two, five_]);
    // A seed row's id from another tenant is not this user's to delete.
    const foreign = await server.call({ method: 'DELETE', url: '/destinations', token, payload: [id('Alpha')] });
    expect(foreign.json()).toEqual({ count: 0 });
    expect(await seedSnapshot()).toEqual(seedBefore);
  });
});

// ---------------------------------------------------------------------------------------------
// Filters that cannot be run: 400 with a code, the offending path, and no internals.

const LEAKS = [
  /select/i,
  /insert into/i,
  /delete from/i,
  /sqlite/i,
  /syntax/i,
  /postgres/i,
  /\bpg_/i,
  /kysely/i,
  /relation "/i,
  /\/work\//,
  /node_modules/,
  /\.ts:\d/,
  /\bat \S+ \(/,
];

/** Asserts the error body of spec section 8 and that nothing in it comes from the database or the code. */
function expectError(response: LightMyRequestResponse, code: string, status = 400): ErrorBody['error'] {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json<ErrorBody>();
  expect(Object.keys(body)).toEqual(['error']);
  const { error } = body;
  expect(error.statusCode).toBe(status);
  expect(error.name).toBe('BadRequestError');
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(Object.keys(error).every((key) => ['statusCode', 'name', 'message', 'code', 'details'].includes(key))).toBe(true);
  if (error.details !== undefined) {
    expect(Array.isArray(error.details)).toBe(true);
    for (const detail of error.details) {
      expect(typeof detail.path).toBe('string');
      expect(typeof detail.message).toBe('string');
    }
  }
  for (const leak of LEAKS) expect(response.body, String(leak)).not.toMatch(leak);
  return error;
}

describe('bad filters answer 400 invalid_filter', () => {
  const nest = (levels: number): unknown => (levels === 1 ? { id: 1 } : { and: [nest(levels - 1)] });
  const many = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  // [what, where clause, path of the mistake]
  const badWheres: [string, unknown, string][] = [
    ['unknown field', { nope: 1 }, 'where.nope'],
    ['unknown field inside an or', { or: [{ name: 'a' }, { nope: 1 }] }, 'where.or[1].nope'],
    ['field of another resource', { password: 'x' }, 'where.password'],
    ['unknown operator', { name: { regexp: '^A' } }, 'where.name.regexp'],
    ['operator as a field', { eq: 'x' }, 'where.eq'],
    ['depth over 12', nest(13), 'where.and[0].and[0].and[0].and[0].and[0].and[0].and[0].and[0].and[0].and[0].and[0].and[0]'],
    ['inq over 1000 items', { id: { inq: many(1001) } }, 'where.id.inq'],
    ['nin over 1000 items', { id: { nin: many(1001) } }, 'where.id.nin'],
    ['or over 1000 clauses', { or: many(1001).map((n) => ({ id: n })) }, 'where.or'],
    ['more than 10000 values in all', { or: many(11).map(() => ({ id: { inq: many(1000) } })) }, 'where.or[10].id'],
    ['text for an integer', { id: 'abc' }, 'where.id'],
    ['hexadecimal text for an integer', { id: '0x10' }, 'where.id'],
    ['a fraction for an integer', { id: 1.5 }, 'where.id'],
    ['an integer beyond 32 bits', { id: 2 ** 31 }, 'where.id'],
    ['a boolean for an integer', { id: { gt: true } }, 'where.id.gt'],
    ['a boolean for text', { name: true }, 'where.name'],
    ['an object for text', { name: { eq: { a: 1 } } }, 'where.name.eq'],
    ['a list for text', { name: ['a'] }, 'where.name'],
    ['a non-date for a date', { created_time: 'yesterday' }, 'where.created_time'],
    ['a day not in the calendar', { created_time: { gte: '2024-02-30' } }, 'where.created_time.gte'],
    ['null for a range operator', { id: { gt: null } }, 'where.id.gt'],
    ['text with a NUL character', { name: 'a\u0000b' }, 'where.name'],
    ['like on a number field', { id: { like: '1%' } }, 'where.id.like'],
    ['like with a number pattern', { name: { like: 5 } }, 'where.name.like'],
    ['between with one value', { id: { between: [1] } }, 'where.id.between'],
    ['between with three values', { id: { between: [1, 2, 3] } }, 'where.id.between'],
    ['between without a list', { id: { between: 1 } }, 'where.id.between'],
    ['inq without a list', { id: { inq: 1 } }, 'where.id.inq'],
    ['empty or', { or: [] }, 'where.or'],
    ['empty and', { and: [] }, 'where.and'],
    ['or that is not a list', { or: { name: 'a' } }, 'where.or'],
    ['or holding a non-object', { or: [1] }, 'where.or[0]'],
    ['empty condition', { name: {} }, 'where.name'],
    ['where that is not an object', 'name', 'where'],
  ];

  test.each(badWheres)('%s: list, count and bulk patch refuse it', async (_what, where, path) => {
    const before = await list({ order: ['id ASC'] });
    const responses = [
      await server.call({ method: 'GET', url: `/destinations?${q('filter', { where })}`, token: member }),
      await server.call({ method: 'GET', url: `/destinations/count?${q('where', where)}`, token: member }),
      await server.call({ method: 'PATCH', url: `/destinations?${q('where', where)}`, token: member, payload: { description: 'x' } }),
    ];
    for (const response of responses) {
      const error = expectError(response, 'invalid_filter');
      expect(error.details?.[0]?.path).toBe(path);
    }
    expect(await list({ order: ['id ASC'] })).toEqual(before);
  });

  // [what, filter, path of the mistake]
  const badFilters: [string, unknown, string][] = [
    ['limit over 1000', { limit: 1001 }, 'limit'],
    ['negative limit', { limit: -1 }, 'limit'],
    ['fractional limit', { limit: 2.5 }, 'limit'],
    ['text limit', { limit: 'ten' }, 'limit'],
    ['negative skip', { skip: -1 }, 'skip'],
    ['order on an unknown field', { order: ['nope ASC'] }, 'order[0]'],
    ['order with a bad direction', { order: ['name SIDEWAYS'] }, 'order[0]'],
    ['order with trailing words', { order: ['name ASC; DROP TABLE destinations'] }, 'order[0]'],
    ['order that is a number', { order: 5 }, 'order'],
    ['order term that is a number', { order: [5] }, 'order[0]'],
    ['order over 10 terms', { order: Array(11).fill('name ASC') }, 'order'],
    ['unknown filter key', { wher: { name: 'a' } }, 'wher'],
    ['a filter that is a list', [{ where: {} }], 'filter'],
    ['a filter that is text', 'name', 'filter'],
  ];

  test.each(badFilters)('%s', async (_what, filter, path) => {
    const response = await server.call({ method: 'GET', url: `/destinations?${q('filter', filter)}`, token: member });
    const error = expectError(response, 'invalid_filter');
    expect(error.details?.[0]?.path).toBe(path);
  });

  test('the limits themselves are accepted', async () => {
    expect(await list({ limit: 1000 })).toHaveLength(SEED.length);
    expect(await count({ id: { inq: many(1000) } })).toBe(SEED.length);
    expect(await count({ or: many(10).map(() => ({ id: { inq: many(1000) } })) })).toBe(SEED.length);
    expect(await list({ order: Array(10).fill('name ASC') })).toHaveLength(SEED.length);
    expect(await count({ id: 2 ** 31 - 1 })).toBe(0);
  });

  test('malformed JSON in filter or where', async () => {
    for (const url of ['/destinations?filter=%7B%22where%22%3A', '/destinations?filter=nope', '/destinations/count?where=%7Bname%7D']) {
      const response = await server.call({ method: 'GET', url, token: member });
      const error = expectError(response, 'invalid_filter');
      expect(['filter', 'where']).toContain(error.details?.[0]?.path);
    }
    const bulk = await server.call({ method: 'PATCH', url: '/destinations?where=%7B', token: member, payload: { description: 'x' } });
    expectError(bulk, 'invalid_filter');
  });

  test('messages name the mistake, in the caller\'s language, without SQL', async () => {
    const response = await server.call({
      method: 'GET',
      url: `/destinations?${q('filter', { where: { name: { regexp: "'; select * from users --" } } })}`,
      token: member,
      headers: { 'accept-language': 'pt-BR' },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json<ErrorBody>();
    expect(error.code).toBe('invalid_filter');
    expect(error.details).toEqual([{ path: 'where.name.regexp', message: "unknown operator 'regexp'" }]);
    expect(response.body).not.toMatch(/select/i);
    const english = await server.call({ method: 'GET', url: `/destinations?${q('filter', { where: { nope: 1 } })}`, token: member });
    expect(english.json<ErrorBody>().error.message).not.toBe(error.message);
  });
});

describe('bad path parameters and bodies answer 400 invalid_input', () => {
  test('ids that are not positive 32-bit integers', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999', '1e3x']) {
      for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
        const response = await server.call({
          method,
          url: `/destinations/${bad}`,
          token: member,
          ...(method === 'PATCH' || method === 'PUT' ? { payload: { description: 'x' } } : {}),
        });
        const error = expectError(response, 'invalid_input');
        expect(error.details?.[0]?.path, `${method} ${bad}`).toBe('params.id');
      }
    }
  });

  test('bulk delete bodies', async () => {
    const before = await count({});
    for (const payload of [[], {}, { ids: [] }, ['1'], [0], [1.5], { ids: [1], extra: true }, [2 ** 31], { ids: [2 ** 40] }]) {
      const response = await server.call({ method: 'DELETE', url: '/destinations', token: member, payload });
      expectError(response, 'invalid_input');
    }
    const missing = await server.call({ method: 'DELETE', url: '/destinations', token: member });
    expectError(missing, 'invalid_input');
    expect(await count({})).toBe(before);
  });

  test('create and patch bodies', async () => {
    const before = await count({});
    const cases: [string, 'POST' | 'PATCH', Record<string, unknown>][] = [
      ['/destinations', 'POST', { name: 'x' }],
      ['/destinations', 'POST', { name: 'x', kind: 'fax', uri: 'sip:x@y' }],
      ['/destinations', 'POST', { name: 'x', kind: 'voice', uri: 'sip:x@y', colour: 'red' }],
      ['/destinations', 'POST', { name: 'x\u0000', kind: 'voice', uri: 'sip:nul@y' }],
      [`/destinations/${id('Alpha')}`, 'PATCH', { kind: 'chat' }],
      [`/destinations/${id('Alpha')}`, 'PATCH', { description: 7 }],
      [`/destinations/${id('Alpha')}`, 'PATCH', { description: 'nul \u0000' }],
      ['/destinations', 'PATCH', { description: 'nul \u0000' }],
    ];
    for (const [url, method, payload] of cases) {
      const response = await server.call({ method, url, token: member, payload });
      expectError(response, 'invalid_input');
    }
    expect(await count({})).toBe(before);
    expect((await list({ where: { name: 'Alpha' } }))[0]).toMatchObject({ kind: 'voice', description: 'main line' });
  });

  test('malformed JSON bodies and repeated query parameters', async () => {
    const body = await server.call({
      method: 'POST',
      url: '/destinations',
      token: member,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expectError(body, 'invalid_input');
    const twice = await server.call({ method: 'GET', url: '/destinations?filter=%7B%7D&filter=%7B%7D', token: member });
    expectError(twice, 'invalid_input');
  });
});
