import { whereOperators } from '@voxplan/contracts';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, test } from 'vitest';
import { type Destination, type ErrorBody, fieldNames, get, type Json, param, rows, tenant, usePropertySeed } from './filter-property-seed.ts';

/**
 * Property tests of the filter language: whatever a client sends as a filter or a where clause,
 * the answer is 200 or a 400 that tells nothing about the database, on SQLite and on PostgreSQL.
 * That valid clauses agree with a model of the language is in filter-model.test.ts.
 */

usePropertySeed();

// ---------------------------------------------------------------------------------------------
// Anything at all: never a 5xx, never the database's words.

const fakeFields = [
  'nope',
  'Name',
  'NAME',
  'password',
  'secret_hash',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'name ',
  'name;',
  'name; DROP TABLE destinations',
  'destinations.name',
  '"name"',
  '',
  '0',
  'and ',
  '$where',
  'tenants.id',
];
const junkOperators = ['regexp', 'ilike', 'exists', 'near', '$gt', 'EQ', 'like ', 'between ', '__proto__', 'constructor', 'and', 'or'];
const weirdText = fc.constantFrom(
  "'",
  "''",
  '"',
  '`',
  '%',
  '%%',
  '_',
  '\\',
  '\\\\',
  'a\\',
  '\\%',
  '\\_',
  '\u0000',
  'a\u0000b',
  "'; DROP TABLE destinations; --",
  '1 OR 1=1',
  "%' OR '1'='1",
  'SELECT * FROM users',
  '/*',
  '*/',
  '--',
  ';',
  'NULL',
  'null',
  'true',
  '😀',
  '\ud800',
  'é',
  'ação',
  '\u202e',
  '\n',
  ' ',
  '',
  '2024-01-01',
  '2024-03-02T01:00:00Z',
  '2024-13-45',
  '0000-01-01',
  '9999-12-31T23:59:59.999Z',
  '9999999999999',
  '-1',
  '1e3',
  '0x10',
  ' 12 ',
  '1.5',
  'NaN',
  'Infinity',
  'name ASC',
  'id DESC',
);
const text = fc.oneof(
  { weight: 3, arbitrary: weirdText },
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.tuple(weirdText, fc.string({ maxLength: 4 }), weirdText).map((parts) => parts.join('')),
);
const number = fc.oneof(
  fc.integer({ min: -3, max: 60 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 31, 2 ** 31 - 1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53, 1e300, -1e300, 0.5, -0, 1709251200000),
);
const scalar: fc.Arbitrary<Json> = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const fieldKey = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...fieldNames) }, fc.constantFrom(...fakeFields), text);
const operatorKey = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...whereOperators) }, fc.constantFrom(...junkOperators), text);

/** Real fields and operators with values of any type: the clauses most likely to reach the database. */
const nearValidCondition = fc.oneof(
  scalar,
  fc.dictionary(fc.constantFrom(...whereOperators), fc.oneof({ weight: 3, arbitrary: scalar }, fc.array(scalar, { maxLength: 3 })), {
    minKeys: 1,
    maxKeys: 2,
  }),
);
const nearValidWhere = fc.dictionary(fc.constantFrom(...fieldNames), nearValidCondition, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<Json>;

const { where: junkWhere } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { weight: 4, arbitrary: scalar },
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(operatorKey, tie('value'), { maxKeys: 3 }),
  ),
  condition: fc.oneof(
    { weight: 2, arbitrary: scalar },
    { weight: 3, arbitrary: fc.dictionary(operatorKey, tie('value'), { maxKeys: 3 }) },
    tie('value'),
  ),
  where: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    { weight: 4, arbitrary: fc.dictionary(fieldKey, tie('condition'), { maxKeys: 3 }) },
    { weight: 5, arbitrary: nearValidWhere },
    fc.record({ and: fc.array(tie('where'), { maxLength: 4 }) }),
    fc.record({ or: fc.array(tie('where'), { maxLength: 4 }) }),
    fc.record({ or: fc.array(tie('where'), { maxLength: 3 }), name: tie('condition') }),
    tie('value'),
  ),
})) as { where: fc.Arbitrary<Json> };

const orderTerm = fc.oneof(
  fc
    .tuple(
      fc.oneof(fc.constantFrom(...fieldNames), fc.constantFrom(...fakeFields)),
      fc.constantFrom('ASC', 'DESC', 'asc', 'desc', '', 'SIDEWAYS', 'ASC; DROP TABLE x', 'NULLS FIRST', 'ASC ASC'),
    )
    .map(([field, direction]) => `${field} ${direction}`),
  text,
);
const validOrderTerm = fc
  .tuple(fc.constantFrom(...fieldNames), fc.constantFrom('ASC', 'DESC', 'asc', ''))
  .map(([field, direction]) => `${field} ${direction}`.trim());
const count = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 30 }) }, fc.integer({ min: -3, max: 1200 }), scalar);
const junkFilter: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        where: junkWhere,
        order: fc.oneof(
          { weight: 4, arbitrary: fc.array(validOrderTerm, { maxLength: 3 }) },
          orderTerm,
          fc.array(orderTerm, { maxLength: 4 }),
          scalar,
        ),
        limit: count,
        skip: count,
      },
      { requiredKeys: [] },
    ) as fc.Arbitrary<Json>,
  },
  fc.dictionary(
    fc.constantFrom('where', 'order', 'limit', 'skip', 'offset', 'include', 'fields', 'wher', '$where'),
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
    { maxKeys: 4 },
  ),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);
/** A lone surrogate cannot be percent-encoded, so it cannot travel in a URL as raw text. */
const encodable = (value: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value);
/** What travels in the query string: mostly JSON, sometimes not. */
const raw = (json: fc.Arbitrary<Json>) =>
  fc.oneof({ weight: 9, arbitrary: json.map((value) => JSON.stringify(value)) }, text.filter(encodable));

/** Every text the request carried: an error may quote them, and they may hold SQL themselves. */
function quoted(rawParam: string): string[] {
  const found = new Set<string>([rawParam]);
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      found.add(value);
      // Order terms are split into words, and a word may be quoted alone.
      for (const word of value.trim().split(/\s+/)) found.add(word);
    }
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        found.add(key);
        walk(item);
      }
    }
  };
  try {
    walk(JSON.parse(rawParam));
  } catch {
    // not JSON: the raw text is all there is
  }
  return [...found].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
}

const LEAKS = [
  /select/i,
  /insert/i,
  /update\s/i,
  /delete\s/i,
  /drop\s/i,
  /sqlite/i,
  /syntax/i,
  /postgres/i,
  /\bpg_/i,
  /kysely/i,
  /relation/i,
  /column/i,
  /constraint/i,
  /near "/i,
  /\/work\//,
  /node_modules/,
  /\.ts\b/,
  /\bat \S+ \(/,
  /internal/i,
];

/** The invariant of every answer: 200 with the tenant's rows, or a clean 400. Returns whether rows came back. */
function checkAnswer(response: LightMyRequestResponse, rawParam: string, kind: 'list' | 'count'): boolean {
  if (response.statusCode === 200) {
    if (kind === 'list') {
      const body = response.json<Destination[]>();
      expect(Array.isArray(body)).toBe(true);
      expect(body.length).toBeLessThanOrEqual(rows.length);
      // Whatever the filter says about tenant_id or ids, the other tenant's rows never appear.
      for (const row of body) expect(row.tenant_id).toBe(tenant);
      return body.length > 0;
    }
    const body = response.json<{ count: number }>();
    expect(Number.isInteger(body.count) && body.count >= 0 && body.count <= rows.length, response.body).toBe(true);
    return body.count > 0;
  }
  expect(response.statusCode, `${rawParam} -> ${response.body}`).toBe(400);
  const { error } = response.json<ErrorBody>();
  expect(error.statusCode).toBe(400);
  expect(error.name).toBe('BadRequestError');
  expect(['invalid_filter', 'invalid_input']).toContain(error.code);
  expect(typeof error.message).toBe('string');
  const texts = [error.message, ...(error.details ?? []).flatMap((detail) => [detail.path, detail.message])];
  const echoes = quoted(rawParam);
  for (const original of texts) {
    let stripped = original;
    for (const echo of echoes) stripped = stripped.split(echo).join('');
    for (const leak of LEAKS) expect(stripped, `${rawParam} -> ${original}`).not.toMatch(leak);
  }
  return false;
}

describe('random filters never fail the server', () => {
  // The generators are tuned so that a fair share of the filters run and return rows; these
  // floors keep them from drifting into testing only the parser.
  test('GET list with 2000 random filters: 200 or a clean 400', async () => {
    let withRows = 0;
    await fc.assert(
      fc.asyncProperty(raw(junkFilter), async (rawFilter) => {
        if (checkAnswer(await get(`/destinations?${param('filter', rawFilter)}`), rawFilter, 'list')) withRows += 1;
      }),
      { numRuns: 2000 },
    );
    expect(withRows).toBeGreaterThan(100);
  });

  test('GET count with 1000 random where clauses: 200 or a clean 400', async () => {
    let withRows = 0;
    await fc.assert(
      fc.asyncProperty(raw(junkWhere), async (rawWhere) => {
        if (checkAnswer(await get(`/destinations/count?${param('where', rawWhere)}`), rawWhere, 'count')) withRows += 1;
      }),
      { numRuns: 1000 },
    );
    expect(withRows).toBeGreaterThan(50);
  });
});
