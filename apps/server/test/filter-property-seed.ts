/**
 * The seed the filter language's property tests run against (filter-*.test.ts): eighteen destinations
 * in each of two tenants, with case twins, quotes, wildcards and ties in their dates, and the calls
 * that read them as a member. The bindings are set by usePropertySeed's hooks.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

// The destinations' rows and error answers as the filter tests read them.
export type { Destination, ErrorBody } from './filters-seed.ts';
import type { Destination, Seed } from './filters-seed.ts';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const SEED: Seed[] = [
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

export const FIELDS = {
  id: 'integer',
  tenant_id: 'integer',
  name: 'string',
  kind: 'string',
  uri: 'string',
  description: 'string',
  created_time: 'date',
  updated_time: 'date',
} as const;
export type Field = keyof typeof FIELDS;
export const fieldNames = Object.keys(FIELDS) as Field[];

export let server: TestServer;
export let member: string;
export let tenant: number;
export let otherTenant: number;
/** The tenant's rows as the API shows them: the data the model filters. */
export let rows: Destination[];

/** Starts the server and seeds both tenants for the file that calls it. */
export function usePropertySeed(): void {
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
}

export const get = (url: string): Promise<LightMyRequestResponse> => server.call({ method: 'GET', url, token: member });
export const param = (name: string, raw: string) => `${name}=${encodeURIComponent(raw)}`;
