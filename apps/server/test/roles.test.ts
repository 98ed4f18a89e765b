import { beforeAll, describe, expect, test } from 'vitest';
import { allResources } from '../src/modules/resource-registry.ts';
import { q, type TestServer } from './harness.ts';
import { admin, as, type Body, createCall, errorOf, expectCode, guest, lastAuditId, member, next, notGuestRefused, readOnlySeeds, type Row, sampleOf, samples, seedRow, server, tenant, useRolesServer, writable } from './roles-fixtures.ts';

/**
 * Roles (spec section 6, architecture "API conventions"): guests never write, admin-only areas
 * answer no_role_permission. The audit entry every write leaves: audit-log.test.ts.
 */

useRolesServer();

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
