import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { allResources } from '../src/modules/resource-registry.ts';
import { q, type TestServer } from './harness.ts';
import { type Actor, admin, as, type AuditEntry, auditSince, type Body, createCall, createUser, expectCode, lastAuditId, member, next, type Row, sampleOf, samples, seedRow, server, SOURCE_IP, tenant, useRolesServer, writable } from './roles-fixtures.ts';

/**
 * Every write leaves an audit entry (spec section 6) saying who did what, where, when and from
 * which address, with secrets masked. Roles: roles.test.ts.
 */

useRolesServer();

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
