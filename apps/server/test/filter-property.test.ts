import { whereOperators } from '@voxplan/contracts';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

/**
 * Property tests of the filter language: whatever a client sends as a filter or a where clause,
 * the answer is 200 or a 400 that tells nothing about the database; and for valid clauses the
 * server agrees with a small model of the language, on SQLite and on PostgreSQL.
 */

interface Destination {
  id: number;
  tenant_id: number;
  created_time: string;
  updated_time: string;
  name: string;
  kind: string;
  uri: string;
  description: string;
}
interface ErrorBody {
  error: { statusCode: number; name: string; message: string; code: string; details?: { path: string; message: string }[] };
}
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SEED: [name: string, kind: 'voice' | 'chat', uri: string, description: string][] = [
  ['Alpha', 'voice', 'sip:alpha@pbx.example', 'main line'],
  ['alpha', 'voice', 'sip:alpha2@pbx.example', 'Main Line'],
  ['Bravo', 'chat', 'https://chat.example/bravo', ''],
  ['Charlie', 'voice', 'tel:+551130000003', '100% uptime'],
  ['Delta', 'chat', 'https://chat.example/delta', 'echo_bot'],
  ['Echo', 'voice', 'sip:echo@pbx.example', 'echo bot'],
  ['Foxtrot', 'chat', 'https://chat.example/foxtrot', 'back\\slash'],
  ['Golf', 'voice', 'sip:golf@pbx.example', `O'Brien "q"`],
  ['Hotel', 'chat', 'https://chat.example/hotel', 'ação'],
  ['India', 'voice', 'sip:india@pbx.example', 'path C:\\'],
  ['Juliett', 'voice', 'tel:+551130000011', '50%'],
  ['Kilo', 'chat', 'https://chat.example/kilo', 'night shift'],
  ['Lima', 'voice', 'sip:lima@pbx.example', 'NIGHT SHIFT'],
  ['Mike', 'chat', 'https://chat.example/mike', ''],
  ['November', 'voice', 'sip:november@pbx.example', 'lobby'],
  ['Oscar', 'chat', 'https://chat.example/oscar', "'; drop table destinations; --"],
  ['Papa', 'voice', 'sip:papa@pbx.example', ''],
  ['Quebec', 'chat', 'https://chat.example/quebec', 'echo'],
];
/** Several rows share a day, so orders by date have ties. */
const createdTime = (index: number): string => `2024-03-${String(1 + (index % 7)).padStart(2, '0')}T0${index % 3}:00:00.000Z`;

const FIELDS = {
  id: 'integer',
  tenant_id: 'integer',
  name: 'string',
  kind: 'string',
  uri: 'string',
  description: 'string',
  created_time: 'date',
  updated_time: 'date',
} as const;
type Field = keyof typeof FIELDS;
const fieldNames = Object.keys(FIELDS) as Field[];

let server: TestServer;
let member: string;
let tenant: number;
let otherTenant: number;
/** The tenant's rows as the API shows them: the data the model filters. */
let rows: Destination[];

beforeAll(async () => {
  server = await startTestServer();
  const admin = await server.login();
  const tenantIds: number[] = [];
  for (const name of ['props', 'props-other']) {
    const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } });
    tenantIds.push(response.json<{ id: number }>().id);
  }
  [tenant, otherTenant] = tenantIds as [number, number];
  const password = 'prop-user-password';
  const user = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username: 'prop-user', password, email: 'prop@example.com', name: 'Prop', roles: [{ role: 'user', tenant_id: tenant }] },
  });
  expect(user.statusCode, user.body).toBe(201);
  member = await server.login('prop-user', password);
  for (const [index, [name, kind, uri, description]] of SEED.entries()) {
    for (const tenantId of [tenant, otherTenant]) {
      const created = await server.call({
        method: 'POST',
        url: '/destinations',
        token: admin,
        tenant: tenantId,
        payload: { name, kind, uri, description },
      });
      expect(created.statusCode, created.body).toBe(201);
      const rowId = created.json<{ id: number }>().id;
      await server.ctx.db.updateTable('destinations').set({ created_time: createdTime(index) }).where('id', '=', rowId).execute();
    }
  }
  rows = (await server.call({ method: 'GET', url: '/destinations', token: member })).json<Destination[]>();
  expect(rows).toHaveLength(SEED.length);
});
afterAll(() => server.close());

const get = (url: string): Promise<LightMyRequestResponse> => server.call({ method: 'GET', url, token: member });
const param = (name: string, raw: string) => `${name}=${encodeURIComponent(raw)}`;

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

// ---------------------------------------------------------------------------------------------
// Valid clauses: the server agrees with a model of the language.

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const asciiUpper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** like: % any run, _ one character, backslash escapes, a lone final backslash is itself; ASCII case ignored. */
function likeMatches(value: string, pattern: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      source += escapeRegExp(asciiLower(pattern[i + 1] ?? '\\'));
      i += 1;
    } else if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else source += escapeRegExp(asciiLower(ch));
  }
  return new RegExp(`^${source}$`, 's').test(asciiLower(value));
}

/** Orders two values of one field: numbers by value, text (and ISO dates) by code unit, as both databases do here. */
function compare(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function normalize(field: Field, value: Json): string | number {
  switch (FIELDS[field]) {
    case 'integer':
      return Number(value);
    case 'date':
      return new Date(value as string | number).toISOString();
    case 'string':
      return String(value);
  }
}

function fieldMatches(row: Destination, field: Field, spec: Json): boolean {
  const actual = row[field];
  const ops: [string, Json][] = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? Object.entries(spec) : [['eq', spec]];
  return ops.every(([op, operand]) => {
    if (operand === null) return op === 'eq' ? actual === null : actual !== null;
    const list = Array.isArray(operand) ? operand.map((item) => normalize(field, item)) : [];
    const value = Array.isArray(operand) ? Number.NaN : normalize(field, operand);
    switch (op) {
      case 'eq':
        return actual === value;
      case 'neq':
        return actual !== value;
      case 'lt':
        return compare(actual, value) < 0;
      case 'gt':
        return compare(actual, value) > 0;
      case 'lte':
        return compare(actual, value) <= 0;
      case 'gte':
        return compare(actual, value) >= 0;
      case 'between':
        return compare(list[0]!, actual) <= 0 && compare(actual, list[1]!) <= 0;
      case 'inq':
        return list.includes(actual);
      case 'nin':
        return !list.includes(actual);
      case 'like':
        return likeMatches(String(actual), String(operand));
      case 'nlike':
        return !likeMatches(String(actual), String(operand));
      default:
        throw new Error(`the generator made an unknown operator ${op}`);
    }
  });
}

function modelMatches(row: Destination, where: { [key: string]: Json }): boolean {
  return Object.entries(where).every(([key, spec]) => {
    if (key === 'and') return (spec as { [key: string]: Json }[]).every((clause) => modelMatches(row, clause));
    if (key === 'or') return (spec as { [key: string]: Json }[]).some((clause) => modelMatches(row, clause));
    return fieldMatches(row, key as Field, spec);
  });
}

interface OrderTerm {
  field: Field;
  desc: boolean;
}
/** The resource's default order is by name; id breaks every tie. */
function modelOrder(list: Destination[], order: OrderTerm[]): Destination[] {
  const chosen: OrderTerm[] = order.length > 0 ? order : [{ field: 'name', desc: false }];
  const terms = chosen.some((term) => term.field === 'id') ? chosen : [...chosen, { field: 'id' as const, desc: false }];
  return [...list].sort((a, b) => {
    for (const { field, desc } of terms) {
      const result = compare(a[field], b[field]);
      if (result !== 0) return desc ? -result : result;
    }
    return 0;
  });
}

const seedTexts = (index: 1 | 2 | 3): string[] => [...new Set(SEED.map((seed) => seed[index]))];
const fragments = (values: string[]) =>
  values.flatMap((value) => [value, value.slice(0, 3), value.slice(-3), value.slice(1, 4)]).filter((s) => !/[%_\\]/.test(s));
function textValues(field: 'name' | 'kind' | 'uri' | 'description'): fc.Arbitrary<string> {
  const values = field === 'name' ? SEED.map((seed) => seed[0]) : seedTexts(({ kind: 1, uri: 2, description: 3 } as const)[field]);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...values) },
    fc.constantFrom(...values).map(asciiUpper),
    fc.constantFrom('', 'zzz', 'M', 'Main', 'a', "O'", '%', '\\'),
  );
}
function likePatterns(field: 'name' | 'kind' | 'uri' | 'description'): fc.Arbitrary<string> {
  const values = field === 'name' ? SEED.map((seed) => seed[0]) : seedTexts(({ kind: 1, uri: 2, description: 3 } as const)[field]);
  // Mostly a pattern cut from a real value (so that it matches something): a slice of it with its
  // own %, _ and \ escaped, % where it was cut, maybe a _ for one character, maybe in capitals.
  const fromValue = fc
    .tuple(fc.constantFrom(...values), fc.nat(), fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), fc.boolean())
    .map(([value, a, b, c, wildcard, upper, extraPercent]) => {
      const units = [...value].map((ch) => (/[%_\\]/.test(ch) ? `\\${ch}` : ch));
      const start = a % (units.length + 1);
      const end = start + (b % (units.length - start + 1));
      const slice = units.slice(start, end);
      if (wildcard && slice.length > 0) slice[c % slice.length] = '_';
      const body = slice.join('');
      return `${start > 0 || extraPercent ? '%' : ''}${upper ? asciiUpper(body) : body}${end < units.length ? '%' : ''}`;
    });
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fragments(values)) },
    fc.constantFrom(...fragments(values)).map(asciiUpper),
    fc.constantFrom('%', '%', '_', '\\%', '\\_', '\\\\', 'o', 'E', ' '),
  );
  const fromPieces = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
  return fc.oneof(
    { weight: 4, arbitrary: fromValue },
    { weight: 2, arbitrary: fromPieces },
    fc.oneof(fromValue, fromPieces).map((pattern) => `${pattern}\\`),
  );
}
function values(field: Field): fc.Arbitrary<Json> {
  switch (field) {
    case 'id': {
      // The tenant's ids and the other tenant's, which sit between them, and a few beyond.
      const ids = rows.map((row) => row.id);
      return fc.integer({ min: Math.min(...ids) - 2, max: Math.max(...ids) + 2 }).chain((n) => fc.constantFrom<Json>(n, String(n)));
    }
    case 'tenant_id':
      return fc.constantFrom<Json>(tenant, otherTenant, String(tenant), 0, 999);
    case 'created_time':
    case 'updated_time': {
      // Built when the test runs: the rows' own times, times between them, and times far off.
      const times = rows.map((row) => row[field]).sort();
      const [first, last] = [Date.parse(times[0]!), Date.parse(times[times.length - 1]!)];
      return fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...times) },
        fc.integer({ min: first - 1000, max: last + 1000 }),
        fc.integer({ min: first - 1000, max: last + 1000 }).map((ms) => new Date(ms).toISOString()),
        fc.constantFrom(times[0]!.slice(0, 10), '2024-03-02T00:00:00-02:00', '2000-01-01', '2999-12-31T23:59:59Z'),
      );
    }
    default:
      return textValues(field);
  }
}
function fieldCondition(field: Field): fc.Arbitrary<Json> {
  const value = values(field);
  const ops: fc.Arbitrary<[string, Json]>[] = [
    fc.tuple(fc.constantFrom('eq', 'neq'), fc.oneof({ weight: 5, arbitrary: value }, fc.constant(null))),
    fc.tuple(fc.constantFrom('lt', 'gt', 'lte', 'gte'), value),
    fc.tuple(fc.constant('between'), fc.tuple(value, value)),
    fc.tuple(fc.constantFrom('inq', 'nin'), fc.array(value, { maxLength: 5 })),
  ];
  if (FIELDS[field] === 'string') {
    // Twice, so that text fields get like/nlike about as often as the other operators together.
    const like = fc.tuple(fc.constantFrom('like', 'nlike'), likePatterns(field as 'name'));
    ops.push(like, like);
  }
  return fc.oneof(
    value,
    fc.array(fc.oneof(...ops), { minLength: 1, maxLength: 2 }).map((pairs) => Object.fromEntries(pairs) as Json),
  );
}
/** Fields a generated clause names; tenant_id is rarer, as it can only ever match all or nothing. */
const weightedFields: Field[] = [...fieldNames, 'name', 'description', 'description', 'uri', 'created_time', 'id'];
const validWhereArbitrary = () => {
  const leaf = fc
    .oneof(
      { weight: 8, arbitrary: fc.constantFrom(...weightedFields).map((field) => [field]) },
      fc.uniqueArray(fc.constantFrom(...fieldNames), { minLength: 0, maxLength: 2 }),
    )
    .chain((fields) => fc.tuple(...fields.map((field) => fieldCondition(field).map((condition) => [field, condition] as const))))
    .map((pairs) => Object.fromEntries(pairs) as { [key: string]: Json });
  return fc.letrec((tie) => ({
  where: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { weight: 6, arbitrary: leaf },
    fc.record({ and: fc.array(tie('where'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('where'), { minLength: 1, maxLength: 3 }) }),
    fc.tuple(leaf, fc.array(tie('where'), { minLength: 1, maxLength: 3 })).map(([fields, clauses]) => ({ ...fields, or: clauses })),
  ),
  })).where as fc.Arbitrary<{ [key: string]: Json }>;
};
const validOrder = fc.array(
  fc.record({ field: fc.constantFrom(...fieldNames), desc: fc.boolean() }),
  { maxLength: 3 },
);

describe('valid filters agree with a model of the language', () => {
  test('the count equals the length of the unlimited list, and both equal the model', async () => {
    let nonTrivial = 0;
    await fc.assert(
      fc.asyncProperty(validWhereArbitrary(), async (where) => {
        const listed = await get(`/destinations?${param('filter', JSON.stringify({ where, order: ['id ASC'] }))}`);
        const counted = await get(`/destinations/count?${param('where', JSON.stringify(where))}`);
        expect(listed.statusCode, `${JSON.stringify(where)} -> ${listed.body}`).toBe(200);
        expect(counted.statusCode, `${JSON.stringify(where)} -> ${counted.body}`).toBe(200);
        const got = listed.json<Destination[]>().map((row) => row.id);
        expect(counted.json<{ count: number }>().count).toBe(got.length);
        const expected = rows.filter((row) => modelMatches(row, where)).map((row) => row.id).sort((a, b) => a - b);
        expect(got, JSON.stringify(where)).toEqual(expected);
        if (expected.length > 0 && expected.length < rows.length) nonTrivial += 1;
      }),
      { numRuns: 400 },
    );
    // The generator must produce clauses that split the rows, or the property proves little.
    expect(nonTrivial).toBeGreaterThanOrEqual(100);
  });

  test('order, limit and skip agree with the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        validWhereArbitrary(),
        validOrder,
        fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
        async (where, order, limit, skip) => {
          const filter = {
            where,
            order: order.map(({ field, desc }) => `${field} ${desc ? 'DESC' : 'ASC'}`),
            ...(limit !== undefined && { limit }),
            ...(skip !== undefined && { skip }),
          };
          const response = await get(`/destinations?${param('filter', JSON.stringify(filter))}`);
          expect(response.statusCode, response.body).toBe(200);
          const matching = modelOrder(
            rows.filter((row) => modelMatches(row, where)),
            order,
          );
          const start = skip ?? 0;
          const expected = matching.slice(start, limit === undefined ? undefined : start + limit).map((row) => row.id);
          expect(response.json<Destination[]>().map((row) => row.id), JSON.stringify(filter)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
