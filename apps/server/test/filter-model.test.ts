import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type Destination, type Field, FIELDS, fieldNames, get, type Json, otherTenant, param, rows, SEED, tenant, usePropertySeed } from './filter-property-seed.ts';

/**
 * Property tests of the filter language: for valid clauses the server agrees with a small model of
 * the language, on SQLite and on PostgreSQL. Random junk filters are in filter-property.test.ts.
 */

usePropertySeed();


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
