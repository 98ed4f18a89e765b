/** bench:api's scenarios (bench/README.md), each checked against the server before it is measured: shared by bench/api/run.ts and bench/budget.ts. */
import { checkedJson } from '../lib/http-json.ts';
import type { ServerChild } from '../lib/server-child.ts';
import type { RequestSpec } from './measure.ts';
import type { LatencyTarget } from './report.ts';

/**
 * The scenarios, each with its targets. The first three repeat one request, which the read cache
 * answers (what the console repeats); the others ask something new every time: a random record,
 * a random range, a write.
 */
export const scenarioKeys = ['users', 'list', 'count', 'id', 'rlist', 'rcount', 'create', 'update'] as const;
export type ScenarioKey = (typeof scenarioKeys)[number];
/** The scenarios no cache answers: the ones the floor is measured on. */
export const uncached: readonly ScenarioKey[] = ['id', 'rlist', 'rcount', 'create', 'update'];

/** The destinations' names: 'dest 000000'... */
export const destName = (n: number) => `dest ${String(n).padStart(6, '0')}`;
/** A range that holds exactly a tenth of `rows`, from the middle: the cached list's and count's. */
export function nameRangeOf(rows: number) {
  const rangeLow = Math.floor(rows / 2);
  const rangeHigh = rangeLow + Math.floor(rows / 10) - 1;
  const nameRange = { name: { between: [destName(rangeLow), destName(rangeHigh)] } };
  return { rangeLow, expectedCount: rangeHigh - rangeLow + 1, nameRange, listFilter: { where: nameRange, order: ['name ASC'], limit: 25 } };
}
/** The random ranges of the uncached list and count: this many names, from anywhere. */
export const RANDOM_RANGE = 500;

const randomInt = (below: number) => Math.floor(Math.random() * below);

export interface Scenario {
  key: ScenarioKey;
  name: string;
  ratioTarget?: number;
  latency: LatencyTarget;
  spec: RequestSpec;
}

/** Every scenario against one seeded server, its answers checked first. */
export async function scenariosFor(app: ServerChild, token: string, rows: number): Promise<Scenario[]> {
  const { tenantId, firstId, lastId } = app.ready;
  const { rangeLow, expectedCount, nameRange, listFilter } = nameRangeOf(rows);
  if (tenantId === undefined || firstId === undefined || lastId === undefined) throw new Error('voxplan server did not report its tenant and ids');
  const auth = { authorization: `Bearer ${token}` };
  const tenantAuth = { ...auth, 'x-tenant-id': String(tenantId) };
  const jsonTenantAuth = { ...tenantAuth, 'content-type': 'application/json' };
  const rangeFrom = (start: number) => ({ name: { between: [destName(start), destName(start + RANDOM_RANGE - 1)] } });
  const listAt = (start: number) =>
    `/api/v1/destinations?filter=${encodeURIComponent(JSON.stringify({ where: rangeFrom(start), order: ['name ASC'], limit: 25 }))}`;
  const countAt = (start: number) => `/api/v1/destinations/count?where=${encodeURIComponent(JSON.stringify(rangeFrom(start)))}`;
  const randomStart = () => randomInt(rows - RANDOM_RANGE + 1);
  const randomId = () => firstId + randomInt(lastId - firstId + 1);
  // Names and URIs of created rows are unique across the warm-up, the measured run and the profile;
  // they sort after every seeded name, so the ranges above keep their counts.
  let created = 0;
  const createBody = () => {
    created += 1;
    return JSON.stringify({ name: `new ${process.pid} ${created}`, kind: 'voice', uri: `sip:new${created}@bench.example` });
  };
  let updated = 0;
  const updateBody = () => JSON.stringify({ description: `bench update ${(updated += 1)}` });

  const usersPath = '/api/v1/users/1';
  const listPath = `/api/v1/destinations?filter=${encodeURIComponent(JSON.stringify(listFilter))}`;
  const countPath = `/api/v1/destinations/count?where=${encodeURIComponent(JSON.stringify(nameRange))}`;
  const get = (path: string, headers: Record<string, string>, next?: () => string): RequestSpec => ({
    method: 'GET',
    path,
    headers,
    ...(next && { next: () => ({ path: next() }) }),
  });

  // The answers must be right before their speed means anything.
  const user = (await checkedJson(`${app.url}${usersPath}`, { headers: auth }, 'GET /users/1')) as { id?: unknown };
  if (user.id !== 1) throw new Error(`GET /users/1 answered ${JSON.stringify(user)}`);
  const names = (start: number, length: number) => Array.from({ length }, (_, i) => destName(start + i));
  const checkList = async (path: string, expected: string[]) => {
    const list = (await checkedJson(`${app.url}${path}`, { headers: tenantAuth }, 'list')) as { name: string }[];
    const got = list.map((row) => row.name);
    if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${path} answered ${JSON.stringify(got)}`);
  };
  const checkCount = async (path: string, expected: number) => {
    const count = (await checkedJson(`${app.url}${path}`, { headers: tenantAuth }, 'count')) as { count?: unknown };
    if (count.count !== expected) throw new Error(`${path} answered ${JSON.stringify(count)}, expected ${expected}`);
  };
  await checkList(listPath, names(rangeLow, 25));
  await checkCount(countPath, expectedCount);
  const start = randomStart();
  await checkList(listAt(start), names(start, 25));
  await checkCount(countAt(start), RANDOM_RANGE);
  const someId = randomId();
  const record = (await checkedJson(`${app.url}/api/v1/destinations/${someId}`, { headers: tenantAuth }, 'GET by id')) as { id?: unknown };
  if (record.id !== someId) throw new Error(`GET /destinations/${someId} answered ${JSON.stringify(record)}`);
  const made = (await checkedJson(`${app.url}/api/v1/destinations`, { method: 'POST', headers: jsonTenantAuth, body: createBody() }, 'create')) as {
    name?: unknown;
  };
  if (made.name !== `new ${process.pid} ${created}`) throw new Error(`create answered ${JSON.stringify(made)}`);
  const body = updateBody();
  const patched = (await checkedJson(`${app.url}/api/v1/destinations/${someId}`, { method: 'PATCH', headers: jsonTenantAuth, body }, 'update')) as {
    description?: unknown;
  };
  if (JSON.stringify({ description: patched.description }) !== body) throw new Error(`update answered ${JSON.stringify(patched)}`);

  const p95 = { percentile: 95, ms: 10 } as const;
  const p99 = { percentile: 99, ms: 10 } as const;
  return [
    { key: 'users', name: 'GET /users/1 (cached)', ratioTarget: 0.5, latency: p95, spec: get(usersPath, auth) },
    { key: 'list', name: 'list 25 of 100k by name range (cached)', ratioTarget: 0.3, latency: p95, spec: get(listPath, tenantAuth) },
    { key: 'count', name: 'count by name range (cached)', ratioTarget: 0.3, latency: p95, spec: get(countPath, tenantAuth) },
    { key: 'id', name: 'GET destination by random id', ratioTarget: 0.4, latency: p99, spec: get('/api/v1/destinations/1', tenantAuth, () => `/api/v1/destinations/${randomId()}`) },
    { key: 'rlist', name: `list 25 of a random ${RANDOM_RANGE}-name range`, ratioTarget: 0.25, latency: p99, spec: get(listAt(0), tenantAuth, () => listAt(randomStart())) },
    { key: 'rcount', name: `count of a random ${RANDOM_RANGE}-name range`, ratioTarget: 0.3, latency: p99, spec: get(countAt(0), tenantAuth, () => countAt(randomStart())) },
    {
      key: 'create',
      name: 'create a destination',
      ratioTarget: 0.15,
      latency: p99,
      spec: { method: 'POST', path: '/api/v1/destinations', headers: jsonTenantAuth, next: () => ({ path: '/api/v1/destinations', body: createBody() }) },
    },
    {
      key: 'update',
      name: 'update a random destination',
      latency: p99,
      spec: { method: 'PATCH', path: '/api/v1/destinations/1', headers: jsonTenantAuth, next: () => ({ path: `/api/v1/destinations/${randomId()}`, body: updateBody() }) },
    },
  ];
}

