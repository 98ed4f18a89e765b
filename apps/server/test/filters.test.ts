import { describe, expect, test } from 'vitest';
import { q } from './harness.ts';
import { admin, ALL, CHAT, count, createRow, createTenant, createUser, describedBy, type Destination, type ErrorBody, expectMatches, id, list, member, type Seed, SEED, server, useFilterSeed, VOICE } from './filters-seed.ts';

/**
 * The filter language of spec section 7 against a real database (SQLite and PostgreSQL): exact
 * result sets for every operator, ordering and paging, count, bulk patch and bulk delete. The 400
 * answers for filters that cannot be run: filters-refusals.test.ts.
 */

useFilterSeed();

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
