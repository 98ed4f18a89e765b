/**
 * What the roles' and the audit's tests share (roles.test.ts, audit-log.test.ts): a valid body for
 * every writable resource, the test tenant's administrator, member and guest, calls from a known
 * address, and the audit entries since a given one. The bindings are set by useRolesServer's hooks.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { enqueuePlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { allResources } from '../src/modules/resource-registry.ts';
import { uploadCall } from './audio-fixtures.ts';
import { ADMIN, q, startTestServer, type TestServer } from './harness.ts';
import { insertReport } from './sessions-helpers.ts';
import { seedTemplate } from './whatsapp-template-fixtures.ts';

export type Body = Record<string, unknown>;
export interface Sample {
  create(n: number): Body;
  patch(n: number): Body;
  /** For rows made elsewhere than POST {path}: the call that sends the body (audios are uploaded). */
  createCall?(body: Body): Parameters<TestServer['call']>[0];
}
export interface Row {
  id: number;
  tenant_id?: number;
  [field: string]: unknown;
}
export interface AuditEntry {
  id: number;
  created_time: string;
  user_id: number | null;
  username: string | null;
  tenant_id: number | null;
  action: 'create' | 'update' | 'delete';
  entity: string;
  entity_id: string | null;
  before: unknown;
  after: unknown;
  source_ip: string | null;
}
export interface ErrorBody {
  error: { statusCode: number; code: string };
}
export interface Actor {
  id: number;
  username: string;
  token: string;
}

export const SOURCE_IP = '203.0.113.7';
/**
 * Writes a guest may make, or that no signed-in user makes: signing in and out, their own account,
 * revoking their own API key (docs/decisions.md), a date range's preview (a read sent as POST), and
 * the providers', the widget's and the outside desk's own routes (a signature, a number's key, a reply URL).
 */
export const notGuestRefused = [/^\/login/, /^\/logout/, /^\/refresh/, /^\/me(\/|$)/, /^\/api-keys\/\{id\}$/, /^\/date-ranges\/preview$/, /^\/hooks\//, /^\/webchat\//, /^\/handoff\//];
export const writable = allResources().filter((resource) => !resource.readOnly);

export let server: TestServer;
export let tenant: number;
export let admin: Actor;
export let member: Actor;
export let guest: Actor;
let serial = 0;
export const next = () => (serial += 1);

/** Valid bodies for every writable resource, so that a refusal is about the role, not the body. */
/** The plan and number of the test tenant that campaign samples use (made in beforeAll). */
export let campaignRefs: { plan_id: number; number_id: number } = { plan_id: 0, number_id: 0 };
export const samples: Record<string, Sample> = {
  '/tenants': { create: (n) => ({ name: `audit-tenant-${n}` }), patch: (n) => ({ name: `audit-renamed-${n}` }) },
  '/users': {
    create: (n) => ({
      username: `audited-${n}`,
      password: `Secret-password-${n}`,
      email: `audited-${n}@example.com`,
      name: `Audited ${n}`,
      roles: [{ role: 'user', tenant_id: tenant }],
    }),
    patch: (n) => ({ name: `Renamed ${n}` }),
  },
  '/configurations': {
    create: (n) => ({ name: `audit.setting.${n}`, value: 'on', category: 'test', description: 'made by a test' }),
    patch: (n) => ({ value: `value ${n}` }),
  },
  '/destinations': {
    create: (n) => ({ name: `Audited ${n}`, kind: 'voice', uri: `sip:audited-${n}@pbx.example`, description: 'first' }),
    patch: (n) => ({ description: `changed ${n}` }),
  },
  '/acl': {
    create: (n) => ({ name: `Audited ${n}`, address: `10.${Math.floor(n / 256) % 256}.${n % 256}.0/24`, description: 'first' }),
    patch: (n) => ({ description: `changed ${n}` }),
  },
  '/holidays': {
    create: (n) => ({ name: `Audited holiday ${n}`, date: '2026-05-20', level: 'state', country: 'BR', state: 'SP' }),
    // A rename could make two holidays of one day and place alike; switching to yearly cannot.
    patch: () => ({ recurring: true }),
  },
  '/date-ranges': {
    create: (n) => ({ name: `Audited range ${n}`, time_zone: 'Europe/Lisbon', intervals: [{ day: 'friday', start: '22:00', end: '02:00' }] }),
    // Not the name, which is unique in a tenant: the bulk patch changes two rows alike.
    patch: (n) => ({ time_zone: 'America/New_York', exceptions: [{ name: `Closed ${n}`, initial_date: '2026-08-01', final_date: '2026-08-15' }] }),
  },
  '/audios': {
    create: (n) => ({ name: `Audited audio ${n}`, language: 'pt-br' }),
    patch: (n) => ({ name: `Renamed audio ${n}` }),
    createCall: (body) => uploadCall(body),
  },
  '/visual-plans': {
    create: (n) => ({ name: `Audited plan ${n}`, description: 'first' }),
    // Names are unique in a tenant: the bulk patch changes the description of two plans alike.
    patch: (n) => ({ description: `changed ${n}` }),
  },
  '/numbers': {
    create: (n) => ({ number: `+5531${String(n).padStart(8, '0')}`, provider: 'whatsapp', whatsapp_token: `audited-token-${n}`, whatsapp_phone_number_id: `10654035224${n}`, whatsapp_app_secret: `audited-secret-${n}`, description: 'first' }),
    // The number is unique across the system: the bulk patch changes the description of two alike.
    patch: (n) => ({ description: `changed ${n}` }),
  },
  '/campaigns': {
    create: (n) => ({ name: `Audited campaign ${n}`, ...campaignRefs }),
    // Names are unique in a tenant: the bulk patch changes the pace of two alike.
    patch: (n) => ({ calls_per_second: 1 + (n % 10) }),
  },
  '/saved-replies': {
    create: (n) => ({ name: `Audited reply ${n}`, text: 'Hello {{name}}' }),
    // Names are unique in a tenant: the bulk patch changes the text of two alike.
    patch: (n) => ({ text: `changed ${n}` }),
  },  '/do-not-call': {
    // A São Paulo mobile number, valid for libphonenumber, unique by n.
    create: (n) => ({ number: `+551191${String(n).padStart(7, '0')}`, reason: 'first' }),
    // Numbers are unique in a tenant: the bulk patch changes the reason of two alike.
    patch: (n) => ({ reason: `changed ${n}` }),
  },
};
/**
 * Rows of read-only resources that members read come from the server's own code paths; a seed
 * writes one in the test tenant and answers its id. (The audit log, read by admins only, always
 * has rows.)
 */
export const readOnlySeeds: Record<string, (tenantId: number, n: number) => Promise<number>> = {
  '/reports': async (tenantId, n) => (await insertReport(server.ctx, tenantId, { sessionId: `roles-and-audit-${n}` })).id,
  '/webhook-deliveries': (tenantId, n) =>
    enqueuePlanEvent(server.ctx.db, { tenantId, planId: n, url: `https://hooks.example/${n}`, event: 'session.ended', payload: { n } }),
  '/whatsapp-templates': (tenantId, n) => seedTemplate(server.ctx.db, tenantId, n),
};
export function sampleOf(resource: ResourceDefinition): Sample {
  const sample = samples[resource.path];
  if (!sample) throw new Error(`writable resource ${resource.path} has no sample body in roles-fixtures.ts: add one`);
  return sample;
}

/** The call that creates a row of the resource with the body. */
export function createCall(resource: ResourceDefinition, body: Body): Parameters<TestServer['call']>[0] {
  const sample = samples[resource.path];
  return sample?.createCall ? sample.createCall(body) : { method: 'POST', url: resource.path, payload: body };
}

/** Calls from a known address, as the user given. */
export const as = (actor: Actor, options: Parameters<TestServer['call']>[0]) =>
  server.call({ remoteAddress: SOURCE_IP, ...options, token: actor.token });

export async function createUser(role: 'user' | 'guest'): Promise<Actor> {
  const username = `${role}-${next()}`;
  const password = `${username}-password`;
  const response = await server.call({
    method: 'POST',
    url: '/users',
    token: admin.token,
    payload: { username, password, email: `${username}@example.com`, name: username, roles: [{ role, tenant_id: tenant }] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { id: response.json<Row>().id, username, token: await server.login(username, password) };
}

/** Creates a row as the administrator (in the test tenant when the resource is tenant-owned). */
export async function seedRow(resource: ResourceDefinition): Promise<Row> {
  const response = await server.call({
    ...createCall(resource, sampleOf(resource).create(next())),
    token: admin.token,
    ...(resource.tenantOwned && { tenant }),
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Row>();
}

export const lastAuditId = async (): Promise<number> => {
  const response = await server.call({ method: 'GET', url: `/audit?${q('filter', { order: ['id DESC'], limit: 1 })}`, token: admin.token });
  return response.json<AuditEntry[]>()[0]?.id ?? 0;
};
/** The entries written after a given one, oldest first, and the raw text they travel in. */
export const auditSince = async (id: number): Promise<{ entries: AuditEntry[]; raw: string }> => {
  const response = await server.call({
    method: 'GET',
    url: `/audit?${q('filter', { where: { id: { gt: id } }, order: ['id ASC'] })}`,
    token: admin.token,
  });
  expect(response.statusCode, response.body).toBe(200);
  return { entries: response.json<AuditEntry[]>(), raw: response.body };
};
export const errorOf = (response: LightMyRequestResponse): { code?: string } => (response.body ? (response.json<Partial<ErrorBody>>().error ?? {}) : {});
export const expectCode = (response: LightMyRequestResponse, status: number, code: string, label = '') => {
  expect(response.statusCode, `${label} ${response.body}`).toBe(status);
  expect(response.json<ErrorBody>().error.code, label).toBe(code);
};

/** Starts the file's server with the test tenant, its administrator, member and guest, once per file. */
export function useRolesServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    const adminToken = await server.login();
    const whoami = await server.call({ method: 'GET', url: '/whoami', token: adminToken });
    admin = { id: whoami.json<Row>().id, username: ADMIN.username, token: adminToken };
    const created = await server.call({ method: 'POST', url: '/tenants', token: adminToken, payload: { name: 'roles' } });
    tenant = created.json<Row>().id;
    // What a campaign needs in the test tenant: a plan and a number that calls.
    const plan = await server.call({ method: 'POST', url: '/visual-plans', token: adminToken, tenant, payload: { name: 'Campaign plan' } });
    const number = await server.call({ method: 'POST', url: '/numbers', token: adminToken, tenant, payload: { number: '+551130009900', provider: 'twilio' } });
    campaignRefs = { plan_id: plan.json<Row>().id, number_id: number.json<Row>().id };
    member = await createUser('user');
    guest = await createUser('guest');
  });
  afterAll(() => server.close());
}
