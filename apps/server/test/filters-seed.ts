/**
 * The seed the filter language's tests run against (filters*.test.ts): twenty destinations of one
 * tenant with known names, kinds, addresses, descriptions and creation dates, two of another tenant,
 * and the calls that list and count them as a member. The bindings are set by useFilterSeed's hooks.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { q, startTestServer, type TestServer } from './harness.ts';

export interface Destination {
  id: number;
  tenant_id: number;
  created_time: string;
  updated_time: string;
  name: string;
  kind: 'voice' | 'chat';
  uri: string;
  description: string;
}
export interface ErrorBody {
  error: { statusCode: number; name: string; message: string; code: string; details?: { path: string; message: string }[] };
}
export type Seed = [name: string, kind: 'voice' | 'chat', uri: string, description: string];

// Twenty rows; row i (1-based) is created on 2024-01-(21 - i) at noon UTC, so date order is the
// reverse of name order and of id order.
export const SEED: Seed[] = [
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
export const ALL = SEED.map(([name]) => name);
export const VOICE = SEED.filter(([, kind]) => kind === 'voice').map(([name]) => name);
export const CHAT = SEED.filter(([, kind]) => kind === 'chat').map(([name]) => name);
export const createdTime = (index: number): string => `2024-01-${String(21 - (index + 1)).padStart(2, '0')}T12:00:00.000Z`;

export let server: TestServer;
export let admin: string;
/** A user (role user) of the tenant holding the seed. */
export let member: string;
export let tenant: number;
export let otherTenant: number;
export const ids = new Map<string, number>();
export const id = (name: string): number => ids.get(name) ?? Number.NaN;

export async function createTenant(name: string): Promise<number> {
  const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

export async function createUser(username: string, tenantId: number): Promise<string> {
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

export async function createRow(tenantId: number, [name, kind, uri, description]: Seed): Promise<Destination> {
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

export const list = async (filter: unknown, token = member): Promise<Destination[]> => {
  const query = filter === undefined ? '' : `?${q('filter', filter)}`;
  const response = await server.call({ method: 'GET', url: `/destinations${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Destination[]>();
};
/** Names matching a where clause, in name order. */
export const names = async (where: unknown): Promise<string[]> => (await list({ where, order: ['name ASC'] })).map((row) => row.name);
export const count = async (where: unknown, token = member): Promise<number> => {
  const response = await server.call({ method: 'GET', url: `/destinations/count?${q('where', where)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ count: number }>();
  expect(Object.keys(body)).toEqual(['count']);
  return body.count;
};
/** Checks a where clause against the list and the count endpoint at once. */
export async function expectMatches(where: unknown, expected: string[]): Promise<void> {
  expect(await names(where), JSON.stringify(where)).toEqual([...expected].sort());
  expect(await count(where), JSON.stringify(where)).toBe(expected.length);
}
/** The seed rows whose description satisfies a predicate. */
export const describedBy = (predicate: (description: string) => boolean): string[] =>
  SEED.filter(([, , , description]) => predicate(description)).map(([name]) => name);

/** Starts the file's server and seeds the twenty rows (and another tenant's two), once per file. */
export function useFilterSeed(): void {
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
}
