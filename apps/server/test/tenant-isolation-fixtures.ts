/**
 * What the tenant isolation matrix's files share (tenant-isolation*.test.ts): a valid body for every
 * tenant-owned resource members write, a seed for those they only read, the resources by who reads
 * and writes them, and a world of two tenants with their rows. The bindings are set by
 * useIsolationServer's hooks.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { enqueuePlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { allResources } from '../src/modules/resource-registry.ts';
import { uploadCall } from './audio-fixtures.ts';
import { startTestServer, type TestServer } from './harness.ts';
import { insertReport } from './sessions-helpers.ts';
import { seedTemplate } from './whatsapp-template-fixtures.ts';

export interface Sample {
  /** A valid create body; n makes it unique. */
  create(n: number): Record<string, unknown>;
  /** A valid patch body that changes something visible. */
  patch: Record<string, unknown>;
  /** For rows made elsewhere than POST {path}: the call that sends the body (audios are uploaded). */
  createCall?(body: Record<string, unknown>): Parameters<TestServer['call']>[0];
}
export const samples: Record<string, Sample> = {
  '/destinations': {
    create: (n) => ({ name: `Isolated ${n}`, kind: 'voice', uri: `sip:isolated-${n}@pbx.example`, description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/acl': {
    create: (n) => ({ name: `Isolated ${n}`, address: `10.${Math.floor(n / 256) % 256}.${n % 256}.0/24`, description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/date-ranges': {
    create: (n) => ({ name: `Isolated ${n}`, time_zone: 'America/Sao_Paulo', intervals: [{ day: 'monday', start: '08:00', end: '18:00' }], country: 'BR' }),
    // Names are unique in a tenant, so the bulk patch changes something else.
    patch: { time_zone: 'Europe/Lisbon' },
  },
  '/audios': {
    create: (n) => ({ name: `Isolated ${n}` }),
    patch: { name: 'changed' },
    createCall: (body) => uploadCall(body),
  },
  '/visual-plans': {
    create: (n) => ({ name: `Isolated plan ${n}`, description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/numbers': {
    create: (n) => ({ number: `+5521${String(n).padStart(8, '0')}`, provider: 'twilio', description: `row ${n}` }),
    patch: { description: 'changed' },
  },
  '/saved-replies': {
    create: (n) => ({ name: `Isolated ${n}`, text: `Hello {{name}}, reply ${n}` }),
    patch: { text: 'changed' },
  },
  '/do-not-call': {
    create: (n) => ({ number: `+551192${String(n).padStart(7, '0')}`, reason: `row ${n}` }),
    patch: { reason: 'changed' },
  },
};

/** Rows of read-only resources come from the server's own code paths: a seed writes one in a tenant and answers its id. */
export const seeds: Record<string, (tenantId: number, n: number) => Promise<number>> = {
  '/reports': async (tenantId, n) => (await insertReport(server.ctx, tenantId, { sessionId: `tenant-isolation-${n}` })).id,
  '/webhook-deliveries': (tenantId, n) =>
    enqueuePlanEvent(server.ctx.db, { tenantId, planId: n, url: `https://hooks.example/${n}`, event: 'session.started', payload: { n } }),
  // A template comes from Meta through a sync, stored for a WhatsApp number of the tenant.
  '/whatsapp-templates': (tenantId, n) => seedTemplate(server.ctx.db, tenantId, n),
};

export interface Row {
  id: number;
  tenant_id: number;
  [field: string]: unknown;
}
export interface ErrorBody {
  error: { statusCode: number; code: string };
}

export const tenantOwned = allResources().filter((resource) => resource.tenantOwned);
// A campaign's body names a plan and a number of its own tenant, which these shared samples cannot;
// campaigns.test.ts checks that another tenant's campaigns, plans and numbers are out of reach.
export const coveredElsewhere = new Set(['/campaigns']);
export const memberWritable = tenantOwned.filter((resource) => !resource.readOnly && resource.write === 'member' && !coveredElsewhere.has(resource.path));
export const adminReadable = tenantOwned.filter((resource) => resource.read === 'admin');
export const memberReadOnly = tenantOwned.filter((resource) => resource.readOnly && resource.read === 'member');

export let server: TestServer;
export let admin: string;
let serial = 0;
export const next = () => (serial += 1);

/** Starts the file's server with the administrator signed in, once per file. */
export function useIsolationServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(() => server.close());
}

export async function createTenant(): Promise<number> {
  const response = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: `iso-${next()}` } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number }>().id;
}

export async function createUser(tenantId: number, role: 'user' | 'guest'): Promise<{ id: number; token: string }> {
  const username = `iso-${role}-${next()}`;
  const password = `${username}-password`;
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenantId }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { id: response.json<{ id: number }>().id, token: await server.login(username, password) };
}

/** The call that creates a row of the resource with the body. */
export function createCall(resource: ResourceDefinition, body: Record<string, unknown>): Parameters<TestServer['call']>[0] {
  const sample = sampleOf(resource);
  return sample.createCall ? sample.createCall(body) : { method: 'POST', url: resource.path, payload: body };
}

/** What a missing, or another tenant's, id answers. */
export const notFoundCode = (resource: ResourceDefinition) => resource.notFoundCode ?? 'not_found';

export function sampleOf(resource: ResourceDefinition): Sample {
  const sample = samples[resource.path];
  if (!sample) {
    throw new Error(`tenant-owned resource ${resource.path} has no sample-row factory in tenant-isolation.test.ts: add one`);
  }
  return sample;
}

export const expectCode = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json<ErrorBody>().error.code).toBe(code);
};

/** Two tenants, a member and a guest of A, a member of B, and rows in both tenants. */
export interface World {
  a: number;
  b: number;
  userA: { id: number; token: string };
  guestA: { id: number; token: string };
  userB: { id: number; token: string };
  aIds: number[];
  bIds: number[];
}

export async function buildWorld(resource: ResourceDefinition): Promise<World> {
  const sample = sampleOf(resource);
  const [a, b] = [await createTenant(), await createTenant()];
  const [userA, guestA, userB] = [await createUser(a, 'user'), await createUser(a, 'guest'), await createUser(b, 'user')];
  const make = async (token: string) => {
    const response = await server.call({ ...createCall(resource, sample.create(next())), token });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<Row>().id;
  };
  const aIds = [await make(userA.token), await make(userA.token), await make(userA.token)];
  const bIds = [await make(userB.token), await make(userB.token), await make(userB.token)];
  return { a, b, userA, guestA, userB, aIds, bIds };
}
