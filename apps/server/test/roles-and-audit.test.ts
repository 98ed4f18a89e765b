import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { enqueuePlanEvent } from '../src/modules/plan-webhook/plan-webhook.service.ts';
import { allResources } from '../src/modules/resource-registry.ts';
import { uploadCall } from './audio-fixtures.ts';
import { ADMIN, q, startTestServer, type TestServer } from './harness.ts';
import { insertReport } from './sessions-helpers.ts';
import { seedTemplate } from './whatsapp-template-fixtures.ts';

/**
 * Roles (spec section 6, architecture "API conventions"): guests never write, admin-only areas
 * answer no_role_permission; and every write leaves an audit entry saying who did what, where,
 * when and from which address, with secrets masked.
 */

type Body = Record<string, unknown>;
interface Sample {
  create(n: number): Body;
  patch(n: number): Body;
  /** For rows made elsewhere than POST {path}: the call that sends the body (audios are uploaded). */
  createCall?(body: Body): Parameters<TestServer['call']>[0];
}
interface Row {
  id: number;
  tenant_id?: number;
  [field: string]: unknown;
}
interface AuditEntry {
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
interface ErrorBody {
  error: { statusCode: number; code: string };
}
interface Actor {
  id: number;
  username: string;
  token: string;
}

const SOURCE_IP = '203.0.113.7';
/**
 * Writes a guest may make, or that no signed-in user makes: signing in and out, their own account,
 * revoking their own API key (docs/decisions.md), a date range's preview (a read sent as POST), and
 * the providers', the widget's and the outside desk's own routes (a signature, a number's key, a reply URL).
 */
const notGuestRefused = [/^\/login/, /^\/logout/, /^\/refresh/, /^\/me(\/|$)/, /^\/api-keys\/\{id\}$/, /^\/date-ranges\/preview$/, /^\/hooks\//, /^\/webchat\//, /^\/handoff\//];
const writable = allResources().filter((resource) => !resource.readOnly);

let server: TestServer;
let tenant: number;
let admin: Actor;
let member: Actor;
let guest: Actor;
let serial = 0;
const next = () => (serial += 1);

/** Valid bodies for every writable resource, so that a refusal is about the role, not the body. */
/** The plan and number of the test tenant that campaign samples use (made in beforeAll). */
let campaignRefs: { plan_id: number; number_id: number } = { plan_id: 0, number_id: 0 };
const samples: Record<string, Sample> = {
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
const readOnlySeeds: Record<string, (tenantId: number, n: number) => Promise<number>> = {
  '/reports': async (tenantId, n) => (await insertReport(server.ctx, tenantId, { sessionId: `roles-and-audit-${n}` })).id,
  '/webhook-deliveries': (tenantId, n) =>
    enqueuePlanEvent(server.ctx.db, { tenantId, planId: n, url: `https://hooks.example/${n}`, event: 'session.ended', payload: { n } }),
  '/whatsapp-templates': (tenantId, n) => seedTemplate(server.ctx.db, tenantId, n),
};
function sampleOf(resource: ResourceDefinition): Sample {
  const sample = samples[resource.path];
  if (!sample) throw new Error(`writable resource ${resource.path} has no sample body in roles-and-audit.test.ts: add one`);
  return sample;
}

/** The call that creates a row of the resource with the body. */
function createCall(resource: ResourceDefinition, body: Body): Parameters<TestServer['call']>[0] {
  const sample = samples[resource.path];
  return sample?.createCall ? sample.createCall(body) : { method: 'POST', url: resource.path, payload: body };
}

/** Calls from a known address, as the user given. */
const as = (actor: Actor, options: Parameters<TestServer['call']>[0]) =>
  server.call({ remoteAddress: SOURCE_IP, ...options, token: actor.token });

async function createUser(role: 'user' | 'guest'): Promise<Actor> {
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
async function seedRow(resource: ResourceDefinition): Promise<Row> {
  const response = await server.call({
    ...createCall(resource, sampleOf(resource).create(next())),
    token: admin.token,
    ...(resource.tenantOwned && { tenant }),
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Row>();
}

const lastAuditId = async (): Promise<number> => {
  const response = await server.call({ method: 'GET', url: `/audit?${q('filter', { order: ['id DESC'], limit: 1 })}`, token: admin.token });
  return response.json<AuditEntry[]>()[0]?.id ?? 0;
};
/** The entries written after a given one, oldest first, and the raw text they travel in. */
const auditSince = async (id: number): Promise<{ entries: AuditEntry[]; raw: string }> => {
  const response = await server.call({
    method: 'GET',
    url: `/audit?${q('filter', { where: { id: { gt: id } }, order: ['id ASC'] })}`,
    token: admin.token,
  });
  expect(response.statusCode, response.body).toBe(200);
  return { entries: response.json<AuditEntry[]>(), raw: response.body };
};
const errorOf = (response: LightMyRequestResponse): { code?: string } => (response.body ? (response.json<Partial<ErrorBody>>().error ?? {}) : {});
const expectCode = (response: LightMyRequestResponse, status: number, code: string, label = '') => {
  expect(response.statusCode, `${label} ${response.body}`).toBe(status);
  expect(response.json<ErrorBody>().error.code, label).toBe(code);
};

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

// ---------------------------------------------------------------------------------------------

describe('roles', () => {
  test('every writable resource has a sample body, every read-only one members read a seed', () => {
    for (const resource of writable) expect(samples[resource.path], `add a sample body for ${resource.path}`).toBeDefined();
    const memberReadOnly = allResources().filter((resource) => resource.readOnly && resource.read === 'member');
    expect(Object.keys(readOnlySeeds).sort()).toEqual(memberReadOnly.map((resource) => resource.path).sort());
  });

  describe.each(allResources().map((resource) => [resource.path, resource] as const))('%s', (path, resource) => {
    let target: Row | undefined;
    beforeAll(async () => {
      const seed = readOnlySeeds[path];
      if (!resource.readOnly) target = await seedRow(resource);
      else if (seed) target = (await server.call({ method: 'GET', url: `${path}/${await seed(tenant, next())}`, token: admin.token })).json<Row>();
    });

    /** The six writes of the generic API, against the seeded row. */
    const writes = (body: Body): Parameters<TestServer['call']>[0][] => {
      const id = target?.id ?? 1;
      return [
        createCall(resource, body),
        { method: 'PATCH', url: `${path}/${id}`, payload: body },
        { method: 'PUT', url: `${path}/${id}`, payload: body },
        { method: 'PATCH', url: `${path}?${q('where', { id })}`, payload: body },
        { method: 'DELETE', url: `${path}/${id}` },
        { method: 'DELETE', url: path, payload: [id] },
      ];
    };
    const reads = (): Parameters<TestServer['call']>[0][] => [
      { method: 'GET', url: path },
      { method: 'GET', url: `${path}/count` },
      { method: 'GET', url: `${path}/${target?.id ?? 1}` },
    ];
    const rowCount = async () =>
      (await server.call({ method: 'GET', url: `${path}/count`, token: admin.token })).json<{ count: number }>().count;

    test(`reads: ${resource.read === 'admin' ? 'admin only (no_role_permission)' : 'every role'}`, async () => {
      for (const actor of [member, guest]) {
        for (const call of reads()) {
          const response = await as(actor, call);
          if (resource.read === 'admin') expectCode(response, 403, 'no_role_permission', `${actor.username} ${call.method} ${call.url}`);
          else expect(response.statusCode, `${actor.username} ${call.method} ${call.url} ${response.body}`).toBe(200);
        }
      }
      for (const call of reads()) expect((await as(admin, call)).statusCode, `admin ${call.url}`).toBe(200);
    });

    test(
      resource.readOnly
        ? 'writes: there is no write route, for any role'
        : `writes: ${resource.write === 'admin' ? 'users and guests get no_role_permission' : 'guests get readonly_only'}, and nothing changes`,
      async () => {
        const auditBefore = await lastAuditId();
        const countBefore = await rowCount();
        const body = resource.readOnly ? {} : sampleOf(resource).create(next());
        for (const payload of [body, {}]) {
          for (const call of writes(payload)) {
            const label = `${call.method} ${call.url}`;
            if (resource.readOnly) {
              for (const actor of [admin, member, guest]) expectCode(await as(actor, call), 404, 'not_found', `${actor.username} ${label}`);
            } else if (resource.write === 'admin') {
              for (const actor of [member, guest]) expectCode(await as(actor, call), 403, 'no_role_permission', `${actor.username} ${label}`);
            } else {
              // The role is checked before the body: an empty body still answers readonly_only.
              expectCode(await as(guest, call), 403, 'readonly_only', `guest ${label}`);
              expectCode(await as(guest, { ...call, tenant }), 403, 'readonly_only', `guest ${label}`);
            }
          }
        }
        expect(await rowCount()).toBe(countBefore);
        if (target) {
          const still = await server.call({ method: 'GET', url: `${path}/${target.id}`, token: admin.token });
          expect(still.json()).toEqual(target);
        }
        expect(await lastAuditId()).toBe(auditBefore);
      },
    );
  });

  test('every write route of the API, from its OpenAPI document: a guest with an invalid body is refused for the role (403), not the body', async () => {
    const doc = (await server.call({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    const checked: string[] = [];
    const refusedFor: string[] = [];
    for (const [template, operations] of Object.entries(doc.paths)) {
      const path = template.replace(/^\/api\/v1/, '');
      if (notGuestRefused.some((pattern) => pattern.test(path))) continue;
      for (const method of Object.keys(operations).map((name) => name.toUpperCase())) {
        if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
        // An id that is not one (the params are input too) and a body of the wrong shape.
        const url = path.replace(/\{[^}]+\}/g, 'not-an-id');
        const response = await as(guest, { method: method as 'POST', url, tenant, payload: { not_a_field: [null] } });
        checked.push(`${method} ${path}`);
        const code = response.statusCode === 403 ? errorOf(response).code : `${response.statusCode} ${errorOf(response).code}`;
        if (code !== 'readonly_only' && code !== 'no_role_permission') refusedFor.push(`${method} ${path}: ${code}`);
      }
    }
    expect(refusedFor).toEqual([]);
    // The loop saw the routes the probe found answering invalid_input first.
    expect(checked).toEqual(expect.arrayContaining(['POST /conversations/{id}/messages', 'POST /conversations/{id}/read', 'PUT /agents/me', 'POST /conversations/{id}/attachments']));
  });

  test('visual plans: a guest reads a plan\'s document, versions and export; every plan call that writes answers readonly_only', async () => {
    const plan = await seedRow(allResources().find((resource) => resource.path === '/visual-plans')!);
    const content = { format_version: 1, nodes: [{ id: 'start', type: 'start' }] };
    const published = await as(member, { method: 'POST', url: `/visual-plans/${plan.id}/publish`, payload: { base_version: 1 } });
    expect(published.statusCode, published.body).toBe(200);
    for (const url of [`/visual-plans/${plan.id}/document`, `/visual-plans/${plan.id}/versions`, `/visual-plans/${plan.id}/versions/1`, `/visual-plans/${plan.id}/export`]) {
      expect((await as(guest, { method: 'GET', url })).statusCode, url).toBe(200);
    }
    const document = (await as(member, { method: 'GET', url: `/visual-plans/${plan.id}/document` })).json<unknown>();
    const auditBefore = await lastAuditId();
    const countBefore = (await as(admin, { method: 'GET', url: '/visual-plans/count' })).json<{ count: number }>().count;
    const writes: Parameters<TestServer['call']>[0][] = [
      { method: 'PUT', url: `/visual-plans/${plan.id}/document`, payload: { base_version: 1, ...content } },
      { method: 'POST', url: `/visual-plans/${plan.id}/publish`, payload: { base_version: 1 } },
      { method: 'POST', url: `/visual-plans/${plan.id}/versions/1/restore`, payload: { base_version: 1 } },
      { method: 'POST', url: `/visual-plans/${plan.id}/save-as`, payload: { name: `Guest's ${next()}`, ...content } },
      { method: 'POST', url: `/visual-plans/${plan.id}/duplicate`, payload: { name: `Guest's copy ${next()}` } },
      { method: 'POST', url: '/visual-plans/import', payload: { name: `Guest's import ${next()}`, ...content } },
    ];
    for (const call of writes) {
      for (const payload of [call.payload, {}]) {
        expectCode(await as(guest, { ...call, payload }), 403, 'readonly_only', `guest ${call.method} ${call.url}`);
        expectCode(await as(guest, { ...call, payload, tenant }), 403, 'readonly_only', `guest ${call.method} ${call.url}`);
      }
    }
    expect((await as(member, { method: 'GET', url: `/visual-plans/${plan.id}/document` })).json()).toEqual(document);
    expect((await as(admin, { method: 'GET', url: '/visual-plans/count' })).json<{ count: number }>().count).toBe(countBefore);
    expect(await lastAuditId()).toBe(auditBefore);
  });

  test('GET /users is for administrators only, even for one\'s own record', async () => {
    for (const actor of [member, guest]) {
      expectCode(await as(actor, { method: 'GET', url: '/users' }), 403, 'no_role_permission');
      expectCode(await as(actor, { method: 'GET', url: `/users/${actor.id}` }), 403, 'no_role_permission');
    }
    const own = await as(member, { method: 'GET', url: '/whoami' });
    expect(own.json()).toMatchObject({ id: member.id, username: member.username });
  });

  test('tenant integrations are for administrators only', async () => {
    const auditBefore = await lastAuditId();
    for (const actor of [member, guest]) {
      expectCode(await as(actor, { method: 'GET', url: `/tenants/${tenant}/integrations` }), 403, 'no_role_permission');
      const patch = await as(actor, { method: 'PATCH', url: `/tenants/${tenant}/integrations`, payload: { openai_key: 'sk-x' } });
      expectCode(patch, 403, 'no_role_permission');
    }
    expect(await lastAuditId()).toBe(auditBefore);
  });

  test('a role held in another tenant lends no rights in the tenant one works in', async () => {
    const other = (await server.call({ method: 'POST', url: '/tenants', token: admin.token, payload: { name: `other-${next()}` } })).json<Row>().id;
    const username = `mixed-${next()}`;
    const created = await server.call({
      method: 'POST',
      url: '/users',
      token: admin.token,
      // Guest where they work (the first role's tenant), user somewhere else.
      payload: { username, password: `${username}-pw`, email: `${username}@example.com`, name: username, roles: [{ role: 'guest', tenant_id: other }, { role: 'user', tenant_id: tenant }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const token = await server.login(username, `${username}-pw`);
    const write = await server.call({ method: 'POST', url: '/destinations', token, payload: { name: 'x', kind: 'voice', uri: 'sip:x@pbx.example' } });
    expectCode(write, 403, 'readonly_only');
    const rows = await server.call({ method: 'GET', url: '/destinations/count', token: admin.token, tenant: other });
    expect(rows.json()).toEqual({ count: 0 });
  });

  test('a guest may still edit their own profile', async () => {
    const response = await as(guest, { method: 'PATCH', url: '/me', payload: { name: 'Guest Renamed' } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: guest.id, name: 'Guest Renamed' });
  });
});

// ---------------------------------------------------------------------------------------------

describe('the audit log records every write', () => {
  /** Runs a write and returns the audit entries it left, checking who, where from and when. */
  async function audited(actor: Actor, call: Parameters<TestServer['call']>[0], expectedStatus: number) {
    const since = await lastAuditId();
    const started = new Date().toISOString();
    const response = await as(actor, call);
    const finished = new Date().toISOString();
    expect(response.statusCode, response.body).toBe(expectedStatus);
    const { entries, raw } = await auditSince(since);
    for (const entry of entries) {
      expect(entry.user_id).toBe(actor.id);
      expect(entry.username).toBe(actor.username);
      expect(entry.source_ip).toBe(SOURCE_IP);
      expect(entry.created_time >= started && entry.created_time <= finished, `${entry.created_time} in [${started}, ${finished}]`).toBe(
        true,
      );
    }
    return { response, entries, raw };
  }

  describe.each(writable.map((resource) => [resource.path, resource] as const))('%s', (path, resource) => {
    const actor = () => (resource.write === 'admin' ? admin : member);
    /** The tenant an entry belongs to: the row's for tenant-owned rows, the tenant itself, or none. */
    const tenantOf = (row: Row): number | null => {
      if (resource.tenantOwned) return row.tenant_id ?? null;
      if (resource.table === 'tenants') return row.id;
      return null;
    };
    const create = async (): Promise<{ row: Row; entries: AuditEntry[]; raw: string; body: Body }> => {
      const body = sampleOf(resource).create(next());
      const { response, entries, raw } = await audited(actor(), createCall(resource, body), 201);
      return { row: response.json<Row>(), entries, raw, body };
    };
    const current = async (id: number): Promise<Row> =>
      (await server.call({ method: 'GET', url: `${path}/${id}`, token: admin.token })).json<Row>();

    test('create: one entry with the new row as "after"', async () => {
      const { row, entries, raw, body } = await create();
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        action: 'create',
        entity: resource.entity,
        entity_id: String(row.id),
        tenant_id: tenantOf(row),
        before: null,
        after: row,
      });
      if (typeof body.password === 'string') {
        expect(raw).not.toContain(body.password);
        expect(raw).not.toMatch(/argon2/i);
        expect(entries[0]!.after).not.toHaveProperty('password');
      }
    });

    test('patch: one entry with "before" and "after"', async () => {
      const { row } = await create();
      const change = sampleOf(resource).patch(next());
      const { response, entries } = await audited(actor(), { method: 'PATCH', url: `${path}/${row.id}`, payload: change }, 200);
      const after = response.json<Row>();
      expect(after).toMatchObject(change);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        action: 'update',
        entity: resource.entity,
        entity_id: String(row.id),
        tenant_id: tenantOf(row),
        before: row,
        after,
      });
    });

    test('bulk patch: one entry per changed row', async () => {
      const first = (await create()).row;
      const second = (await create()).row;
      const change = sampleOf(resource).patch(next());
      // Tenant names are unique: a bulk rename of two tenants is refused, and leaves no entry.
      const unique = resource.table === 'tenants';
      const { response, entries } = await audited(
        actor(),
        { method: 'PATCH', url: `${path}?${q('where', { id: { inq: [first.id, second.id] } })}`, payload: change },
        unique ? 409 : 200,
      );
      if (unique) {
        expect(entries).toEqual([]);
        return;
      }
      expect(response.json()).toEqual({ count: 2 });
      expect(entries.map((entry) => [entry.action, entry.entity, entry.entity_id])).toEqual([
        ['update', resource.entity, String(first.id)],
        ['update', resource.entity, String(second.id)],
      ]);
      expect(entries[0]).toMatchObject({ tenant_id: tenantOf(first), before: first, after: await current(first.id) });
      expect(entries[1]).toMatchObject({ tenant_id: tenantOf(second), before: second, after: await current(second.id) });
    });

    test('delete: one entry with the removed row as "before"', async () => {
      const { row } = await create();
      const { response, entries } = await audited(actor(), { method: 'DELETE', url: `${path}/${row.id}` }, 204);
      expect(response.body).toBe('');
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        action: 'delete',
        entity: resource.entity,
        entity_id: String(row.id),
        tenant_id: tenantOf(row),
        before: row,
        after: null,
      });
    });

    test('bulk delete: one entry per removed row', async () => {
      const rows = [(await create()).row, (await create()).row];
      const { response, entries } = await audited(actor(), { method: 'DELETE', url: path, payload: { ids: rows.map((row) => row.id) } }, 200);
      expect(response.json()).toEqual({ count: 2 });
      expect(entries).toHaveLength(2);
      for (const [index, row] of rows.entries()) {
        expect(entries[index]).toMatchObject({
          action: 'delete',
          entity: resource.entity,
          entity_id: String(row.id),
          tenant_id: tenantOf(row),
          before: row,
          after: null,
        });
      }
    });

    test('failed writes leave no entry', async () => {
      const { row } = await create();
      const since = await lastAuditId();
      const missing = 2_000_000_000;
      expect((await as(actor(), { method: 'PATCH', url: `${path}/${missing}`, payload: sampleOf(resource).patch(next()) })).statusCode).toBe(404);
      expect((await as(actor(), { method: 'DELETE', url: `${path}/${missing}` })).statusCode).toBe(404);
      expect((await as(actor(), createCall(resource, {}))).statusCode).toBe(400);
      expect((await as(actor(), { method: 'PATCH', url: `${path}/${row.id}`, payload: { no_such_field: 1 } })).statusCode).toBe(400);
      expect((await as(actor(), { method: 'DELETE', url: path, payload: [missing] })).json()).toEqual({ count: 0 });
      expect((await as(actor(), { method: 'PATCH', url: `${path}?${q('where', { id: missing })}`, payload: sampleOf(resource).patch(next()) })).json()).toEqual({
        count: 0,
      });
      expect((await auditSince(since)).entries).toEqual([]);
    });
  });

  test('a bulk patch refused halfway leaves no entry (and no change)', async () => {
    const chat = await as(member, { method: 'POST', url: '/destinations', payload: { name: 'Half chat', kind: 'chat', uri: 'https://chat.example/half' } });
    const voice = await as(member, { method: 'POST', url: '/destinations', payload: { name: 'Half voice', kind: 'voice', uri: 'sip:half@pbx.example' } });
    const ids = [chat.json<Row>().id, voice.json<Row>().id];
    const { entries } = await audited(member, { method: 'PATCH', url: `/destinations?${q('where', { id: { inq: ids } })}`, payload: { kind: 'chat' } }, 400);
    expect(entries).toEqual([]);
    const still = await as(member, { method: 'GET', url: `/destinations/${ids[1]}` });
    expect(still.json()).toMatchObject({ kind: 'voice' });
  });

  test('a user\'s password never reaches the log, in clear or hashed', async () => {
    const created = await audited(admin, { method: 'POST', url: '/users', payload: samples['/users']!.create(next()) }, 201);
    const id = created.response.json<Row>().id;
    const newPassword = 'Brand-new-secret-99';
    const patched = await audited(admin, { method: 'PATCH', url: `/users/${id}`, payload: { password: newPassword } }, 200);
    expect(patched.entries).toHaveLength(1);
    for (const { raw } of [created, patched]) {
      expect(raw).not.toMatch(/argon2/i);
      expect(raw).not.toContain('Secret-password-');
      expect(raw).not.toContain(newPassword);
    }
    expect(patched.entries[0]!.after).not.toHaveProperty('password');
  });

  test('PATCH /tenants/:id/integrations: tokens are masked in before and after', async () => {
    const first = {
      twilio_sid: 'AC0123456789',
      twilio_token: 'twilio-secret-token-1111',
      openai_key: 'sk-openai-secret-2222',
    };
    const one = await audited(admin, { method: 'PATCH', url: `/tenants/${tenant}/integrations`, payload: first }, 200);
    expect(one.entries).toHaveLength(1);
    expect(one.entries[0]).toMatchObject({
      action: 'update',
      entity: 'tenant_integrations',
      entity_id: String(tenant),
      tenant_id: tenant,
      after: { twilio_sid: 'AC0123456789', twilio_token: '••••1111', openai_key: '••••2222' },
    });
    const second = { ...first, twilio_token: 'twilio-other-token-3333', sippulse_ai_key: 'sippulse-secret-4444' };
    // The second AI provider's key is taken while its setting is on.
    const setSecondAi = (isOn: boolean) => server.ctx.db.updateTable('configurations').set({ value: String(isOn) }).where('name', '=', 'feature_second_ai_provider').execute();
    await setSecondAi(true);
    const two = await audited(admin, { method: 'PATCH', url: `/tenants/${tenant}/integrations`, payload: second }, 200).finally(() => setSecondAi(false));
    expect(two.entries[0]).toMatchObject({
      before: { twilio_token: '••••1111', openai_key: '••••2222' },
      after: { twilio_token: '••••3333', openai_key: '••••2222', sippulse_ai_key: '••••4444' },
    });
    for (const { raw } of [one, two]) {
      for (const secret of [first.twilio_token, first.openai_key, second.twilio_token, second.sippulse_ai_key]) expect(raw).not.toContain(secret);
    }
  });

  test('POST /me/password: an entry for the user, with the password masked', async () => {
    const user = await createUser('user');
    const oldPassword = `${user.username}-password`;
    const newPassword = 'Changed-secret-5555';
    const { entries, raw } = await audited(
      user,
      { method: 'POST', url: '/me/password', payload: { current_password: oldPassword, password: newPassword, confirmation: newPassword } },
      204,
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'update',
      entity: 'user_password',
      entity_id: String(user.id),
      tenant_id: null,
      before: null,
      after: { password: '••••' },
    });
    expect(raw).not.toContain(oldPassword);
    expect(raw).not.toContain(newPassword);
    expect(raw).not.toMatch(/argon2/i);
  });

  test('POST and DELETE /api-keys: entries without the key or its hash', async () => {
    const { response, entries, raw } = await audited(member, { method: 'POST', url: '/api-keys', payload: { name: 'ci' } }, 201);
    const created = response.json<{ id: number; key: string; prefix: string; name: string }>();
    const secret = created.key.slice(created.key.indexOf('_', 4) + 1);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'create',
      entity: 'api_key',
      entity_id: String(created.id),
      before: null,
      after: { id: created.id, name: 'ci', prefix: created.prefix },
    });
    expect(raw).not.toContain(created.key);
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(createHash('sha256').update(secret).digest('hex'));
    const removed = await audited(member, { method: 'DELETE', url: `/api-keys/${created.id}` }, 204);
    expect(removed.entries).toHaveLength(1);
    expect(removed.entries[0]).toMatchObject({ action: 'delete', entity: 'api_key', entity_id: String(created.id), after: null });
    expect(removed.raw).not.toContain(secret);
  });

  test('PATCH /me: an entry for the user\'s own record', async () => {
    const { entries } = await audited(member, { method: 'PATCH', url: '/me', payload: { name: 'Member Renamed' } }, 200);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'update', entity: 'user', entity_id: String(member.id), after: { name: 'Member Renamed' } });
  });

  test('the plan calls: save, publish, restore, save as, duplicate and import each leave their entries', async () => {
    const plan = await seedRow(allResources().find((resource) => resource.path === '/visual-plans')!);
    const content = { format_version: 1, nodes: [{ id: 'start', type: 'start' }, { id: 'end', type: 'hangup' }], edges: [{ id: 'e', source: 'start', source_exit: 'next', target: 'end' }] };
    const kinds = (entries: AuditEntry[]) => entries.map((entry) => [entry.action, entry.entity, entry.tenant_id]);
    const saved = await audited(member, { method: 'PUT', url: `/visual-plans/${plan.id}/document`, payload: { base_version: 1, ...content } }, 200);
    expect(kinds(saved.entries)).toEqual([['update', 'visual_plan', tenant]]);
    expect(saved.entries[0]).toMatchObject({ entity_id: String(plan.id), before: { version: 1 }, after: { version: 2 } });
    const published = await audited(member, { method: 'POST', url: `/visual-plans/${plan.id}/publish`, payload: { base_version: 2 } }, 200);
    expect(kinds(published.entries)).toEqual([
      ['create', 'visual_plan_version', tenant],
      ['update', 'visual_plan', tenant],
    ]);
    expect(published.entries[0]).toMatchObject({ entity_id: String(published.response.json<Row>().id), before: null, after: { plan_id: plan.id, version: 2 } });
    // A draft that differs from version 2, so that restoring it changes something (a change that
    // changes nothing makes no version and no entry).
    const changed = { ...content, nodes: [...content.nodes, { id: 'spare', type: 'hangup' }] };
    const edited = await audited(member, { method: 'PUT', url: `/visual-plans/${plan.id}/document`, payload: { base_version: 2, ...changed } }, 200);
    expect(kinds(edited.entries)).toEqual([['update', 'visual_plan', tenant]]);
    const restored = await audited(member, { method: 'POST', url: `/visual-plans/${plan.id}/versions/2/restore`, payload: { base_version: 3 } }, 200);
    expect(kinds(restored.entries)).toEqual([['update', 'visual_plan', tenant]]);
    for (const call of [
      { method: 'POST' as const, url: `/visual-plans/${plan.id}/save-as`, payload: { name: `Saved as ${next()}`, ...content } },
      { method: 'POST' as const, url: `/visual-plans/${plan.id}/duplicate` },
      { method: 'POST' as const, url: '/visual-plans/import', payload: { name: `Imported ${next()}`, ...content } },
    ]) {
      const made = await audited(member, call, 201);
      expect(kinds(made.entries), call.url).toEqual([['create', 'visual_plan', tenant]]);
      expect(made.entries[0]).toMatchObject({ entity_id: String(made.response.json<Row>().id), before: null, after: { version: 1 } });
    }
  });

  test('an entry reads back by id, for administrators only', async () => {
    const id = await lastAuditId();
    const one = await server.call({ method: 'GET', url: `/audit/${id}`, token: admin.token });
    expect(one.statusCode).toBe(200);
    expect(one.json<AuditEntry>().id).toBe(id);
    expectCode(await as(member, { method: 'GET', url: `/audit/${id}` }), 403, 'no_role_permission');
  });
});
