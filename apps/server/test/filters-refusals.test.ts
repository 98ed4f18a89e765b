import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, test } from 'vitest';
import { q } from './harness.ts';
import { count, type ErrorBody, id, list, member, SEED, server, useFilterSeed } from './filters-seed.ts';

/**
 * The filter language's refusals (spec section 7) against a real database (SQLite and PostgreSQL):
 * filters that cannot be run answer 400 invalid_filter, bad path parameters and bodies 400
 * invalid_input. What filters select: filters.test.ts.
 */

useFilterSeed();

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
    expectError(await server.call({ method: 'GET', url: '/destinations/count?where=%7B%7D&where=%7B%7D', token: member }), 'invalid_input');
    // A parameter the route does not take is left aside, beside the filter as without one.
    for (const url of ['/destinations/count?where=%7B%7D&other=1', '/destinations/count?other=1', '/destinations/count']) {
      const counted = await server.call({ method: 'GET', url, token: member });
      expect(counted.statusCode, url).toBe(200);
      expect(typeof counted.json<{ count: unknown }>().count, url).toBe('number');
    }
    const listed = await server.call({ method: 'GET', url: '/destinations?other=1&filter=%7B%22limit%22%3A1%7D', token: member });
    expect(listed.statusCode).toBe(200);
    expect(listed.json<unknown[]>()).toHaveLength(Math.min(1, (await server.call({ method: 'GET', url: '/destinations', token: member })).json<unknown[]>().length));
  });
});
