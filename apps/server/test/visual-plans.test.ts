import fs from 'node:fs';
import { type VisualPlan, type VisualPlanDocument, type VisualPlanDraft, type VisualPlanDraftDocument, visualPlanDraftHistory, type VisualPlanExport } from '@voxplan/contracts/visual-plan';
import { beforeAll, describe, expect, test } from 'vitest';
import { errorOf, q, type TestServer } from './harness.ts';
import { largePlan } from '../../../bench/editor/large-plan.ts';
import { brief, edge, expectCode, expectPlanErrors, greeting, plansServer, type Body, type Client } from './visual-plans-client.ts';

/**
 * The plans API (docs/api.md, "Visual plans"): drafts saved with the version they were based on,
 * published versions kept and restorable, saved drafts, and plans made from content: save as,
 * duplicate, import and export. Names, validation, lint and references: visual-plans-checks.test.ts.
 */

const { suite, next, client, newTenant, auditAfter, lastAuditId } = plansServer();
/** Two tenants, each with a member (role user); tests make plans of their own in them. */
let a: Client;
let b: Client;
beforeAll(async () => {
  [a, b] = [await newTenant(), await newTenant()];
});

describe('drafts', () => {

  test('a new plan has one start block; lists and records show the plan without its blocks', async () => {
    const plan = await a.create('Reception');
    expect(plan).toMatchObject({ name: 'Reception', description: '', version: 1, published_version: null, tenant_id: a.member.tenantId, updated_by: a.member.userId });
    expect(plan).not.toHaveProperty('nodes');
    const document = await a.document(plan.id);
    expect(document).toMatchObject({ id: plan.id, version: 1, format_version: 2, edges: [], errors: [] });
    expect(document.nodes).toEqual([{ id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { generate_protocol: false, hangup_chat_message: '', ignore_call: false } }]);
    expect(document.settings).toEqual({ session_timeout_min: 30, chat_text: '', sync_with_voice_text: false, webhook: '', language: '', twilio_voice: '', tts_voice: '' });
    expect(brief(document.warnings)).toEqual([{ code: 'unconnected_exit', node_id: 'start', path: 'exits.next' }]);

    const list = await a.call({ method: 'GET', url: `/visual-plans?${q('filter', { where: { id: plan.id } })}` });
    expect(list.json()).toEqual([plan]);
    expect(list.body).not.toContain('"nodes"');
    expect((await a.call({ method: 'GET', url: `/visual-plans/${plan.id}` })).json()).toEqual(plan);
    expect((await a.call({ method: 'GET', url: `/visual-plans/count?${q('where', { published_version: { eq: null }, id: plan.id })}` })).json()).toEqual({ count: 1 });
  });

  test('plans name who saved them last, to members and guests who may not list users; a renamed or removed user shows so', async () => {
    const admin = (options: Parameters<TestServer['call']>[0]) => suite.server.call({ ...options, token: suite.admin });
    const n = next();
    const colleague = await admin({
      method: 'POST',
      url: '/users',
      payload: { username: `colleague-${n}`, password: `colleague-${n}-password`, email: `colleague-${n}@example.com`, name: 'Ana Souza', roles: [{ role: 'user', tenant_id: a.member.tenantId }] },
    });
    expect(colleague.statusCode, colleague.body).toBe(201);
    const colleagueId = colleague.json<{ id: number }>().id;
    const guest = await admin({
      method: 'POST',
      url: '/users',
      payload: { username: `viewer-${n}`, password: `viewer-${n}-password`, email: `viewer-${n}@example.com`, name: 'Viewer', roles: [{ role: 'guest', tenant_id: a.member.tenantId }] },
    });
    expect(guest.statusCode, guest.body).toBe(201);
    const asColleague = client({ ...a.member, userId: colleagueId, token: await suite.server.login(`colleague-${n}`, `colleague-${n}-password`) });
    const guestToken = await suite.server.login(`viewer-${n}`, `viewer-${n}-password`);

    const plan = await asColleague.create();
    expect(plan).toMatchObject({ updated_by: colleagueId, updated_by_name: 'Ana Souza' });
    // The guest may not list users (no_role_permission), yet reads the name with the plan.
    expectCode(await suite.server.call({ method: 'GET', url: '/users', token: guestToken }), 403, 'no_role_permission');
    const listed = async () => {
      const response = await suite.server.call({ method: 'GET', url: `/visual-plans?${q('filter', { where: { id: plan.id } })}`, token: guestToken });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<VisualPlan[]>()[0];
    };
    // Asked twice: the second answer may come from the read cache, which a user's rename must drop.
    expect(await listed()).toMatchObject({ updated_by_name: 'Ana Souza' });
    expect(await listed()).toMatchObject({ updated_by_name: 'Ana Souza' });
    expect((await a.document(plan.id)).updated_by_name).toBe('Ana Souza');

    expect((await admin({ method: 'PATCH', url: `/users/${colleagueId}`, payload: { name: 'Ana Souza Lima' } })).statusCode).toBe(200);
    expect(await listed()).toMatchObject({ updated_by_name: 'Ana Souza Lima' });

    const saved = await a.saved(plan.id, plan.version, greeting());
    expect(saved).toMatchObject({ updated_by: a.member.userId, updated_by_name: a.member.username });
    await asColleague.saved(plan.id, saved.version, greeting('Again'));
    expect((await admin({ method: 'DELETE', url: `/users/${colleagueId}` })).statusCode).toBe(204);
    expect(await listed()).toMatchObject({ updated_by: null, updated_by_name: null });
  });

  test('a save carries the version it was based on, and each save adds one; a rename keeps the version', async () => {
    const plan = await a.create();
    const auditFrom = await lastAuditId();
    const first = await a.saved(plan.id, 1, { ...greeting('Welcome'), settings: { session_timeout_min: 5 } });
    expect(first).toMatchObject({ id: plan.id, version: 2, published_version: null, warnings: [], errors: [] });
    expect(first.settings.session_timeout_min).toBe(5);
    expect(first.nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'Welcome', text_to_speech: true });
    const second = await a.saved(plan.id, 2, greeting('Welcome back'));
    expect(second.version).toBe(3);
    expect(await a.document(plan.id)).toEqual(second);

    const renamed = await a.call({ method: 'PATCH', url: `/visual-plans/${plan.id}`, payload: { name: `Renamed ${next()}`, description: 'the front door' } });
    expect(renamed.json()).toMatchObject({ version: 3, description: 'the front door' });

    const entries = await auditAfter(auditFrom);
    expect(entries.map((entry) => [entry.action, entry.entity, entry.entity_id])).toEqual([
      ['update', 'visual_plan', String(plan.id)],
      ['update', 'visual_plan', String(plan.id)],
      ['update', 'visual_plan', String(plan.id)],
    ]);
    expect(entries[0]).toMatchObject({ tenant_id: a.member.tenantId, user_id: a.member.userId, before: { version: 1 }, after: { version: 2 } });
    expect(entries[1]).toMatchObject({ before: { version: 2 }, after: { version: 3 } });
  });

  test('a save that changes nothing makes no version and no audit entry', async () => {
    const plan = await a.create();
    const first = await a.saved(plan.id, 1, greeting('Same words'));
    expect(first.version).toBe(2);
    const auditFrom = await lastAuditId();
    const again = await a.saved(plan.id, 2, greeting('Same words'));
    expect(again.version).toBe(2);
    expect(again).toEqual(first);
    expect(await auditAfter(auditFrom)).toEqual([]);
    // The version it answers is the one to save over next.
    expect((await a.saved(plan.id, 2, greeting('Other words'))).version).toBe(3);
  });

  test('a save over someone else\'s newer save is refused with plan_out_of_sync, and nothing is written', async () => {
    const plan = await a.create();
    const mine = await a.saved(plan.id, 1, greeting('Mine'));
    const auditFrom = await lastAuditId();
    const stale = await a.save(plan.id, 1, greeting('Stale'));
    expectCode(stale, 409, 'plan_out_of_sync');
    expect(errorOf(stale).details).toEqual([{ path: 'base_version', message: 'the plan is at version 2' }]);
    expect(errorOf(await a.save(plan.id, 7, greeting('Ahead')))).toMatchObject({ code: 'plan_out_of_sync' });
    expect(await a.document(plan.id)).toEqual(mine);
    expect(await auditAfter(auditFrom)).toEqual([]);
    // The way out the spec gives: save the stale content under another name.
    const copy = await a.call({ method: 'POST', url: `/visual-plans/${plan.id}/save-as`, payload: { name: `Mine, stale ${next()}`, ...greeting('Stale') } });
    expect(copy.statusCode, copy.body).toBe(201);
    expect(copy.json<VisualPlanDocument>()).toMatchObject({ version: 1, published_version: null });
    expect(copy.json<VisualPlanDocument>().nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'Stale' });
    expect(await a.document(plan.id)).toEqual(mine);
  });

  test('two saves over the same version at once: exactly one wins, the other is out of sync', async () => {
    for (let round = 0; round < 3; round++) {
      const plan = await a.create();
      const texts = ['Left', 'Right', 'Middle'];
      const answers = await Promise.all(texts.map((text) => a.save(plan.id, 1, greeting(text))));
      const won = answers.filter((response) => response.statusCode === 200);
      expect(won).toHaveLength(1);
      for (const lost of answers.filter((response) => response.statusCode !== 200)) expectCode(lost, 409, 'plan_out_of_sync');
      const winner = won[0]!.json<VisualPlanDocument>();
      const stored = await a.document(plan.id);
      expect(stored.version).toBe(2);
      expect(stored).toEqual(winner);
    }
  });

  test('unknown ids and malformed bodies', async () => {
    const plan = await a.create();
    expectCode(await a.save(2_000_000_000, 1, greeting()), 404, 'not_found');
    expectCode(await a.call({ method: 'GET', url: '/visual-plans/2000000000/document' }), 404, 'not_found');
    const noVersion = await a.call({ method: 'PUT', url: `/visual-plans/${plan.id}/document`, payload: greeting() });
    expectCode(noVersion, 400, 'invalid_input');
    expect(errorOf(noVersion).details?.map((detail) => detail.path)).toContain('base_version');
    const notJson = await a.call({ method: 'PUT', url: `/visual-plans/${plan.id}/document`, headers: { 'content-type': 'application/json' }, payload: '{"base_version": 1, "nodes": [' });
    expectCode(notJson, 400, 'invalid_input');
    // PostgreSQL cannot store the NUL character: refused alike on both databases.
    const nul = await a.save(plan.id, 1, greeting('Hel\u0000lo'));
    expectCode(nul, 400, 'invalid_input');
    expect(errorOf(nul).details?.[0]?.path).toBe('nodes.1.data.voice_text');
    expect((await a.document(plan.id)).version).toBe(1);
  });

  test('a plan of 2,000 blocks saves and reads back; 2,001 blocks or 8,001 edges are refused', async () => {
    const references = { destinationId: await a.destination(), dateRangeId: await a.dateRange() };
    const big = largePlan(2_000, references);
    const plan = await a.create();
    const saved = await a.saved(plan.id, plan.version, big);
    expect(saved.errors).toEqual([]);
    expect((await a.document(plan.id)).nodes.map((n) => n.id)).toEqual(big.nodes.map((n) => n.id));

    const tooMany = largePlan(2_001, references);
    const refused = await a.save(plan.id, saved.version, tooMany);
    expectPlanErrors(refused, [{ code: 'invalid_field', path: 'nodes' }]);
    const extra = Array.from({ length: 8_001 - big.edges.length }, (_, index) => ({ ...big.edges[index % big.edges.length]!, id: `extra-${index}` }));
    const tooManyEdges = await a.save(plan.id, saved.version, { ...big, edges: [...big.edges, ...extra] });
    expectPlanErrors(tooManyEdges, [{ code: 'invalid_field', path: 'edges' }]);
    expect((await a.document(plan.id)).version).toBe(saved.version);
  });

  test('a document stored in an older format is migrated when read', async () => {
    const plan = await a.create();
    // Format 0: no format_version, nodes without position or data.
    await suite.server.ctx.db
      .updateTable('visual_plans')
      .set({ document: JSON.stringify({ nodes: [{ id: 'start', type: 'start' }, { id: 'end', type: 'hangup' }], edges: [edge('start', 'next', 'end')] }) })
      .where('id', '=', plan.id)
      .execute();
    const document = await a.document(plan.id);
    expect(document).toMatchObject({ format_version: 2, errors: [], warnings: [] });
    expect(document.nodes[1]).toEqual({ id: 'end', type: 'hangup', position: { x: 0, y: 0 }, data: { cause: 'normal_clearing' } });
    const published = await a.published(plan.id, 1);
    const version = await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/versions/${published.version}` });
    expect(version.json()).toMatchObject({ format_version: 2, nodes: document.nodes });
  });
});

describe('publishing, versions and restore', () => {

  test('publish keeps every version, newest first; publishing the same draft again writes nothing', async () => {
    const plan = await a.create();
    await a.saved(plan.id, 1, greeting('One'));
    const auditFrom = await lastAuditId();
    const first = await a.published(plan.id, 2);
    expect(first).toMatchObject({ plan_id: plan.id, tenant_id: a.member.tenantId, version: 2, name: plan.name, published_by: a.member.userId, warnings: [] });
    const entries = await auditAfter(auditFrom);
    expect(entries.map((entry) => [entry.action, entry.entity])).toEqual([
      ['create', 'visual_plan_version'],
      ['update', 'visual_plan'],
    ]);
    expect(entries[1]).toMatchObject({ before: { published_version: null }, after: { published_version: 2, version: 2 } });

    const again = await a.published(plan.id, 2);
    expect(again.id).toBe(first.id);
    expect(await auditAfter(entries[1]!.id)).toEqual([]);

    await a.saved(plan.id, 2, greeting('Two'));
    expectCode(await a.publish(plan.id, 2), 409, 'plan_out_of_sync');
    const second = await a.published(plan.id, 3);
    expect((await a.versions(plan.id)).map((version) => [version.id, version.version])).toEqual([
      [second.id, 3],
      [first.id, 2],
    ]);
    expect((await a.call({ method: 'GET', url: `/visual-plans/${plan.id}` })).json()).toMatchObject({ version: 3, published_version: 3 });

    const old = await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/versions/2` });
    expect(old.statusCode, old.body).toBe(200);
    expect(old.json<VisualPlanDocument>().nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'One' });
    expect(old.json()).not.toHaveProperty('warnings');
    expectCode(await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/versions/1` }), 404, 'not_found');
    // The session runtime reads the newest published version from the table.
    const row = await suite.server.ctx.db.selectFrom('visual_plan_versions').select('document').where('plan_id', '=', plan.id).where('version', '=', 3).executeTakeFirstOrThrow();
    expect(JSON.parse(row.document)).toMatchObject({ format_version: 2, nodes: expect.arrayContaining([expect.objectContaining({ id: 'hello', data: expect.objectContaining({ voice_text: 'Two' }) })]) });
  });

  test('an older version is restored into the draft, over the version the caller saw', async () => {
    const plan = await a.create();
    await a.saved(plan.id, 1, greeting('Original'));
    await a.published(plan.id, 2);
    await a.saved(plan.id, 2, greeting('Experiment'));
    const auditFrom = await lastAuditId();

    expectCode(await a.call({ method: 'POST', url: `/visual-plans/${plan.id}/versions/2/restore`, payload: { base_version: 2 } }), 409, 'plan_out_of_sync');
    expectCode(await a.call({ method: 'POST', url: `/visual-plans/${plan.id}/versions/9/restore`, payload: { base_version: 3 } }), 404, 'not_found');
    const restored = await a.call({ method: 'POST', url: `/visual-plans/${plan.id}/versions/2/restore`, payload: { base_version: 3 } });
    expect(restored.statusCode, restored.body).toBe(200);
    const document = restored.json<VisualPlanDocument>();
    expect(document).toMatchObject({ version: 4, published_version: 2 });
    expect(document.nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'Original' });
    const entries = await auditAfter(auditFrom);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'update', entity: 'visual_plan', before: { version: 3 }, after: { version: 4, restored_version: 2 } });
    // Restoring does not publish: the restored draft is published like any other.
    expect((await a.published(plan.id, 4)).version).toBe(4);
  });
});

describe('saved drafts', () => {
  test('every save that changes the draft is kept, newest first, with who saved it; any is read and restored into the draft over the version the caller saw', async () => {
    const plan = await a.create();
    await a.saved(plan.id, 1, greeting('First'));
    await a.saved(plan.id, 2, greeting('Second'));
    // Publishing writes no draft; a save of the same document makes none either.
    await a.published(plan.id, 3);
    await a.saved(plan.id, 3, greeting('Second'));
    await a.saved(plan.id, 3, greeting('Third'));
    const listed = await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/drafts` });
    expect(listed.statusCode, listed.body).toBe(200);
    const drafts = listed.json<VisualPlanDraft[]>();
    expect(drafts.map((draft) => draft.version)).toEqual([4, 3, 2]);
    expect(drafts[0]).toMatchObject({ plan_id: plan.id, saved_by: expect.any(Number), saved_by_name: expect.any(String), saved_time: expect.any(String) });

    const second = await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/drafts/2` });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json<VisualPlanDraftDocument>().nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'First' });
    expectCode(await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/drafts/9` }), 404, 'not_found');
    // Another tenant's plan is not found, as if it did not exist.
    expectCode(await b.call({ method: 'GET', url: `/visual-plans/${plan.id}/drafts` }), 404, 'not_found');
    expectCode(await b.call({ method: 'POST', url: `/visual-plans/${plan.id}/drafts/2/restore`, payload: { base_version: 4 } }), 404, 'not_found');

    const auditFrom = await lastAuditId();
    expectCode(await a.call({ method: 'POST', url: `/visual-plans/${plan.id}/drafts/2/restore`, payload: { base_version: 3 } }), 409, 'plan_out_of_sync');
    const restored = await a.call({ method: 'POST', url: `/visual-plans/${plan.id}/drafts/2/restore`, payload: { base_version: 4 } });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json<VisualPlanDocument>()).toMatchObject({ version: 5, published_version: 3 });
    expect(restored.json<VisualPlanDocument>().nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'First' });
    expect((await auditAfter(auditFrom))[0]).toMatchObject({ action: 'update', entity: 'visual_plan', before: { version: 4 }, after: { version: 5, restored_draft: 2 } });
    // The restore is a save: it is a draft of its own.
    expect((await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/drafts` })).json<VisualPlanDraft[]>()[0]?.version).toBe(5);
  });

  test(`a plan keeps its last ${visualPlanDraftHistory} drafts`, async () => {
    const plan = await a.create();
    let version = plan.version;
    for (let index = 0; index <= visualPlanDraftHistory; index++) version = (await a.saved(plan.id, version, greeting(`Take ${index}`))).version;
    const drafts = (await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/drafts` })).json<VisualPlanDraft[]>();
    expect(drafts).toHaveLength(visualPlanDraftHistory);
    expect(drafts[0]!.version).toBe(version);
    expect(drafts.at(-1)!.version).toBe(version - visualPlanDraftHistory + 1);
  });
});

describe('plans made from others: save as, duplicate, import, export', () => {

  test('duplicate copies the draft under a free name, unpublished', async () => {
    const source = await a.planWith(greeting('Copied'), `Sales ${next()}`);
    await a.published(source.id, source.version);
    const auditFrom = await lastAuditId();
    const duplicate = async (payload?: Body) => {
      const response = await a.call({ method: 'POST', url: `/visual-plans/${source.id}/duplicate`, ...(payload && { payload }) });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<VisualPlanDocument>();
    };
    const one = await duplicate();
    const two = await duplicate({});
    const named = await duplicate({ name: `Hand picked ${next()}` });
    expect([one.name, two.name]).toEqual([`${source.name} (copy)`, `${source.name} (copy 2)`]);
    for (const copy of [one, two, named]) {
      expect(copy).toMatchObject({ version: 1, published_version: null, settings: source.settings, nodes: source.nodes, edges: source.edges });
      expect(copy.id).not.toBe(source.id);
    }
    expect((await auditAfter(auditFrom)).map((entry) => [entry.action, entry.entity, entry.entity_id])).toEqual(
      [one, two, named].map((copy) => ['create', 'visual_plan', String(copy.id)]),
    );
    expectCode(await a.call({ method: 'POST', url: `/visual-plans/${source.id}/duplicate`, payload: { name: named.name } }), 409, 'name_already_exists');
  });

  test('save as refuses a name in use', async () => {
    const source = await a.create();
    const taken = await a.call({ method: 'POST', url: `/visual-plans/${source.id}/save-as`, payload: { name: source.name, ...greeting() } });
    expectCode(taken, 409, 'name_already_exists');
    expect(errorOf(taken).details).toEqual([{ path: 'name', message: 'already exists' }]);
  });

  test('export then import: the same plan, with its name and format, as an attachment', async () => {
    const source = await a.planWith({ ...greeting('Round trip'), settings: { chat_text: 'Bye', session_timeout_min: 12 } }, `Exported 计划 ${next()}`);
    await a.published(source.id, source.version);
    await a.saved(source.id, source.version, greeting('Draft after publishing'));

    const exported = await a.call({ method: 'GET', url: `/visual-plans/${source.id}/export` });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.headers['content-disposition']).toMatch(/^attachment; filename="Exported \?\? \d+\.json"; filename\*=UTF-8''Exported%20%E8%AE%A1%E5%88%92%20\d+\.json$/);
    const file = exported.json<VisualPlanExport>();
    expect(Object.keys(file)).toEqual(['format_version', 'name', 'description', 'settings', 'nodes', 'edges']);
    expect(file.nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'Draft after publishing' });
    const publishedFile = (await a.call({ method: 'GET', url: `/visual-plans/${source.id}/export?version=${source.version}` })).json<VisualPlanExport>();
    expect(publishedFile.nodes.find((n) => n.id === 'hello')!.data).toMatchObject({ voice_text: 'Round trip' });

    const imported = await a.call({ method: 'POST', url: '/visual-plans/import', payload: { ...file, name: `Imported ${next()}` } });
    expect(imported.statusCode, imported.body).toBe(201);
    const plan = imported.json<VisualPlanDocument>();
    expect(plan).toMatchObject({ tenant_id: a.member.tenantId, version: 1, published_version: null, settings: file.settings, nodes: file.nodes, edges: file.edges });
    const again = (await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/export` })).json<VisualPlanExport>();
    expect({ ...again, name: file.name }).toEqual(file);
    expectCode(await a.call({ method: 'POST', url: '/visual-plans/import', payload: file }), 409, 'name_already_exists');
  });

  test('an old file is migrated on import; a file from another installation keeps its blocks, not its ids', async () => {
    const old = { name: `Old file ${next()}`, nodes: [{ id: 'start', type: 'start' }, { id: 'bye', type: 'hangup', data: { cause: 'busy' } }], edges: [edge('start', 'next', 'bye')] };
    const response = await a.call({ method: 'POST', url: '/visual-plans/import', payload: old });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<VisualPlanDocument>()).toMatchObject({ format_version: 2, nodes: [{ id: 'start', position: { x: 0, y: 0 } }, { id: 'bye', data: { cause: 'busy' } }] });

    const fixture = JSON.parse(fs.readFileSync(new URL('../../../fixtures/plans/self-service.json', import.meta.url), 'utf8')) as Body;
    const foreign = await a.call({ method: 'POST', url: '/visual-plans/import', payload: { ...fixture, name: `Self service ${next()}` } });
    expect(foreign.statusCode, foreign.body).toBe(201);
    const plan = foreign.json<VisualPlanDocument>();
    expect(plan.id).not.toBe(fixture.id);
    expect(plan).toMatchObject({ tenant_id: a.member.tenantId, version: 1 });
    expect(plan.nodes.map((n) => n.id)).toEqual((fixture.nodes as Body[]).map((n) => n.id));

    expectPlanErrors(await a.call({ method: 'POST', url: '/visual-plans/import', payload: { ...old, name: `Future ${next()}`, format_version: 99 } }), [
      { code: 'unsupported_format', path: 'format_version' },
    ]);
    const nameless = await a.call({ method: 'POST', url: '/visual-plans/import', payload: { nodes: old.nodes } });
    expectCode(nameless, 400, 'invalid_input');
    expect(errorOf(nameless).details?.map((detail) => detail.path)).toEqual(['name']);
  });
});
