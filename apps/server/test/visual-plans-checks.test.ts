import type { VisualPlan, VisualPlanDocument, VisualPlanExport } from '@voxplan/contracts/visual-plan';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, test } from 'vitest';
import { errorOf, type TestServer } from './harness.ts';
import { brief, content, edge, expectCode, expectPlanErrors, greeting, issues, node, plansServer, type Client, type Issue } from './visual-plans-client.ts';

/**
 * The plans API's checks (docs/api.md, "Visual plans"): block names, validation with the blocks'
 * ids on save and publish, lint warnings, the records plans refer to kept from removal, and an
 * admin's calls. Drafts, versions and copies: visual-plans.test.ts.
 */

const { suite, next, newTenant, auditAfter, lastAuditId } = plansServer();
/** Two tenants, each with a member (role user); tests make plans of their own in them. */
let a: Client;
let b: Client;
beforeAll(async () => {
  [a, b] = [await newTenant(), await newTenant()];
});

describe('block names', () => {
  test('a block may be named: the name is trimmed, kept through publish, export and import; blank or over 60 characters is refused on the block', async () => {
    const named = (label: string) => content([node('start', 'start'), { ...node('hello', 'play_message', { voice_text: 'Hi' }), label }, node('end', 'hangup')], [edge('start', 'next', 'hello'), edge('hello', 'next', 'end')]);
    const plan = await a.planWith(named('  Welcome  '));
    expect(plan.nodes.find((n) => n.id === 'hello')).toMatchObject({ label: 'Welcome' });
    // Unnamed blocks carry no name at all, not an empty one.
    expect(plan.nodes.find((n) => n.id === 'end')).not.toHaveProperty('label');
    await a.published(plan.id, plan.version);
    const version = (await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/versions/${plan.version}` })).json<VisualPlanDocument>();
    expect(version.nodes.find((n) => n.id === 'hello')?.label).toBe('Welcome');

    const file = (await a.call({ method: 'GET', url: `/visual-plans/${plan.id}/export` })).json<VisualPlanExport>();
    expect(file.nodes.find((n) => n.id === 'hello')?.label).toBe('Welcome');
    const imported = await a.call({ method: 'POST', url: '/visual-plans/import', payload: { ...file, name: `Named ${next()}` } });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json<VisualPlanDocument>().nodes.find((n) => n.id === 'hello')?.label).toBe('Welcome');

    expectPlanErrors(await a.save(plan.id, plan.version, named('   ')), [{ code: 'invalid_field', node_id: 'hello', path: 'label' }]);
    expectPlanErrors(await a.save(plan.id, plan.version, named('x'.repeat(61))), [{ code: 'invalid_field', node_id: 'hello', path: 'label' }]);
    expect((await a.saved(plan.id, plan.version, named('x'.repeat(60)))).nodes.find((n) => n.id === 'hello')?.label).toHaveLength(60);
  });
});

describe('validation on save and on publish', () => {
  let plan: VisualPlan;
  beforeAll(async () => {
    plan = await a.create();
  });
  const expectUnchanged = async () => expect((await a.document(plan.id)).version).toBe(1);

  test('a block\'s invalid data is reported with its node id and field path', async () => {
    const response = await a.save(plan.id, 1, content([
      node('start', 'start'),
      node('m', 'voice_menu', { voice_text: 'Press', options: [{ digits: '1x' }] }),
      node('w', 'destination', { destination_id: 'four' }),
      node('q', 'no_such_block'),
    ]));
    expectPlanErrors(response, [
      { code: 'invalid_field', node_id: 'm', path: 'options.0.digits' },
      { code: 'invalid_field', node_id: 'w', path: 'destination_id' },
      { code: 'unknown_block_type', node_id: 'q', path: 'type' },
    ]);
    await expectUnchanged();
  });

  test('an HTTP request whose body is not JSON is refused', async () => {
    const response = await a.save(plan.id, 1, content(
      [node('start', 'start'), node('req', 'http_request', { url: 'https://api.example/x', method: 'POST', body: '{"caller": {{caller}}}' })],
      [edge('start', 'next', 'req')],
    ));
    expectPlanErrors(response, [{ code: 'invalid_json', node_id: 'req', path: 'body' }]);
    await expectUnchanged();
  });

  test('edges by exits a block does not have, and a second start, are refused', async () => {
    const response = await a.save(plan.id, 1, content(
      [node('start', 'start'), node('again', 'start'), node('end', 'hangup')],
      [edge('start', 'nowhere', 'end'), { id: 'dangling', source: 'start', source_exit: 'next', target: 'ghost' }],
    ));
    expectPlanErrors(response, [
      { code: 'multiple_starts', node_id: 'again', path: 'type' },
      { code: 'unknown_exit', edge_id: 'start-nowhere', path: 'source_exit' },
      { code: 'unknown_node', edge_id: 'dangling', path: 'target' },
    ]);
    expectPlanErrors(await a.save(plan.id, 1, content([node('end', 'hangup')])), [{ code: 'missing_start', path: 'nodes' }]);
    await expectUnchanged();
  });

  test('references must exist in the plan\'s tenant: another tenant\'s records are not found, as if they did not exist', async () => {
    const [theirs, theirRange, theirPlan, theirAudio] = [await b.destination(), await b.dateRange(), (await b.create()).id, await b.audio()];
    const [mine, myRange, myAudio] = [await a.destination(), await a.dateRange(), await a.audio()];
    const referring = (destination: number, range: number, called: number, audio?: number) =>
      content(
        [
          node('start', 'start'),
          node('hours', 'date_range', { date_range_id: range }),
          node('dest', 'destination', { destination_id: destination }),
          node('other', 'call_plan', { plan_id: called }),
          node('prompt', 'play_message', audio === undefined ? { voice_text: 'hi' } : { text_to_speech: false, audio_id: audio }),
        ],
        [edge('start', 'next', 'hours'), edge('hours', 'in_hours', 'dest'), edge('hours', 'out_of_hours', 'prompt'), edge('prompt', 'next', 'other')],
      );
    const foreign = await a.save(plan.id, 1, referring(theirs, theirRange, theirPlan, theirAudio));
    expectPlanErrors(foreign, [
      { code: 'reference_not_found', node_id: 'dest', path: 'destination_id' },
      { code: 'reference_not_found', node_id: 'hours', path: 'date_range_id' },
      { code: 'reference_not_found', node_id: 'other', path: 'plan_id' },
      { code: 'reference_not_found', node_id: 'prompt', path: 'audio_id' },
    ]);
    const missing = await a.save(plan.id, 1, referring(2_000_000_000, 2_000_000_001, 2_000_000_002));
    const wording = (response: LightMyRequestResponse) => issues(response).map((issue) => issue.message.replace(/\d+/g, 'N'));
    expect(wording(foreign).slice(0, 3)).toEqual(wording(missing));
    expect(foreign.body).not.toContain(`"tenant_id":${b.member.tenantId}`);
    expectPlanErrors(await a.save(plan.id, 1, referring(mine, myRange, plan.id, myAudio)), [{ code: 'plan_calls_itself', node_id: 'other', path: 'plan_id' }]);
    await expectUnchanged();

    const callee = await a.create();
    const fine = await a.saved(plan.id, 1, referring(mine, myRange, callee.id, myAudio));
    expect(fine.version).toBe(2);
    expectPlanErrors(await a.call({ method: 'POST', url: '/visual-plans/import', payload: { name: `Foreign refs ${next()}`, ...referring(theirs, myRange, callee.id) } }), [
      { code: 'reference_not_found', node_id: 'dest', path: 'destination_id' },
    ]);
  });

  test('publishing validates the draft again', async () => {
    const other = await a.create();
    // A draft that today's rules refuse (written before they grew stricter): shown with its errors, not published.
    await suite.server.ctx.db
      .updateTable('visual_plans')
      .set({ document: JSON.stringify(content([node('start', 'start'), node('m', 'voice_menu', { options: [{ digits: '123' }] })])) })
      .where('id', '=', other.id)
      .execute();
    const document = await a.document(other.id);
    expect(brief(document.errors)).toEqual([{ code: 'invalid_field', node_id: 'm', path: 'options.0.digits' }]);
    expect(document.nodes).toHaveLength(2);
    expectPlanErrors(await a.publish(other.id, 1), [{ code: 'invalid_field', node_id: 'm', path: 'options.0.digits' }]);
    expect(await a.versions(other.id)).toEqual([]);
  });
});

describe('lint warnings come back with the save and the publish', () => {

  test('unreachable blocks, unconnected exits, a menu without timeout or invalid exit, a loop that waits for nothing', async () => {
    const plan = await a.create();
    const saved = await a.saved(plan.id, 1, content(
      [
        node('start', 'start'),
        node('menu', 'voice_menu', { voice_text: 'Press 1', options: [{ digits: '1' }] }),
        node('count', 'variable', { assignments: [{ name: 'n', value: '=n + 1' }] }),
        node('check', 'condition', { rules: [{ left: '{{n}}', op: 'lt', right: '3' }] }),
        node('island', 'hangup'),
        node('end', 'hangup'),
      ],
      [edge('start', 'next', 'menu'), edge('menu', '1', 'count'), edge('count', 'next', 'check'), edge('check', 'true', 'count'), edge('check', 'false', 'end')],
    ));
    const expected = [
      { code: 'voice_menu_exit_unconnected', node_id: 'menu', path: 'exits.timeout' },
      { code: 'voice_menu_exit_unconnected', node_id: 'menu', path: 'exits.invalid' },
      { code: 'unreachable', node_id: 'island', path: '' },
      { code: 'loop_without_input', node_id: 'count', path: '' },
    ];
    expect(brief(saved.warnings)).toEqual(expected);
    expect(brief((await a.published(plan.id, 2)).warnings)).toEqual(expected);
    expect(brief((await a.document(plan.id)).warnings)).toEqual(expected);
  });

  test('call_plan cycles between plans (A → B → A) are named on the calling block', async () => {
    const [first, second] = [await a.create(), await a.create()];
    const calling = (id: number) => content([node('start', 'start'), node('go', 'call_plan', { plan_id: id })], [edge('start', 'next', 'go')]);
    expect((await a.saved(first.id, 1, calling(second.id))).warnings).toEqual([]);
    const closing = await a.saved(second.id, 1, calling(first.id));
    expect(brief(closing.warnings)).toEqual([{ code: 'call_plan_cycle', node_id: 'go', path: 'plan_id' }]);
    expect(closing.warnings[0]!.message).toContain(`${second.id} → ${first.id} → ${second.id}`);
    // The other side of the cycle says so too, when it is opened.
    expect(brief((await a.document(first.id)).warnings)).toEqual([{ code: 'call_plan_cycle', node_id: 'go', path: 'plan_id' }]);
    // A published version still counts: the draft of B no longer calls A, its published version does.
    await a.published(second.id, 2);
    await a.saved(second.id, 2, greeting());
    expect(brief((await a.document(first.id)).warnings)).toEqual([{ code: 'call_plan_cycle', node_id: 'go', path: 'plan_id' }]);
    await a.published(second.id, 3);
    expect((await a.document(first.id)).warnings).toEqual([]);
  });

  test('a chatbot on the second AI provider is warned about while feature_second_ai_provider is off, which every user can read', async () => {
    const setSecondAi = (isOn: boolean) => suite.server.ctx.db.updateTable('configurations').set({ value: String(isOn) }).where('name', '=', 'feature_second_ai_provider').execute();
    const settingOff = (warnings: Issue[]) => brief(warnings.filter((warning) => warning.code === 'setting_off'));
    const features = async () => {
      const response = await a.call({ method: 'GET', url: '/features' });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Record<string, boolean>>();
    };
    const plan = await a.create();
    const bots = content(
      [node('start', 'start'), node('second', 'chatbot', { provider: 'sippulse' }), node('first', 'chatbot', { provider: 'openai' })],
      [edge('start', 'next', 'second'), edge('second', 'done', 'first')],
    );
    const expected = [{ code: 'setting_off', node_id: 'second', path: 'provider' }];
    await setSecondAi(false);
    try {
      expect(await features()).toEqual({ feature_second_ai_provider: false });
      const saved = await a.saved(plan.id, 1, bots);
      expect(settingOff(saved.warnings)).toEqual(expected);
      expect(saved.warnings.find((warning) => warning.code === 'setting_off')!.message).toContain('feature_second_ai_provider');
      expect(settingOff((await a.published(plan.id, 2)).warnings)).toEqual(expected);
      await setSecondAi(true);
      expect(await features()).toEqual({ feature_second_ai_provider: true });
      expect(settingOff((await a.document(plan.id)).warnings)).toEqual([]);
    } finally {
      await setSecondAi(false);
    }
    expect((await suite.server.call({ method: 'GET', url: '/features' })).statusCode).toBe(401);
  });
});

describe('records plans refer to cannot be removed', () => {
  const using = (field: 'destination_id' | 'date_range_id' | 'audio_id', type: 'destination' | 'date_range' | 'play_message', id: number) =>
    content([node('start', 'start'), node('ref', type, { [field]: id })], [edge('start', 'next', 'ref')]);
  const makers = { destination: () => a.destination(), date_range: () => a.dateRange(), play_message: () => a.audio() };

  test.each([
    ['/destinations', 'destination', 'destination_id', 'destination_in_use'],
    ['/date-ranges', 'date_range', 'date_range_id', 'date_range_in_use'],
    ['/audios', 'play_message', 'audio_id', 'audio_in_use'],
  ] as const)('%s: refused while a draft or the published version uses it', async (path, type, field, code) => {
    const id = await makers[type]();
    const spare = await makers[type]();
    const plan = await a.planWith(using(field, type, id), `Uses ${type} ${next()}`);

    const refused = await a.call({ method: 'DELETE', url: `${path}/${id}` });
    expectCode(refused, 409, code);
    expect(errorOf(refused).details).toEqual([{ path: String(id), message: expect.stringContaining(`"${plan.name}" (${plan.id})`), plan_id: plan.id, plan_name: plan.name }]);
    const bulk = await a.call({ method: 'DELETE', url: path, payload: [spare, id] });
    expectCode(bulk, 409, code);
    expect((await a.call({ method: 'GET', url: `${path}/${spare}` })).statusCode).toBe(200);

    // Published, then the draft moves on: the published version still runs it.
    await a.published(plan.id, 2);
    await a.saved(plan.id, 2, greeting());
    expectCode(await a.call({ method: 'DELETE', url: `${path}/${id}` }), 409, code);
    await a.published(plan.id, 3);
    expect((await a.call({ method: 'DELETE', url: `${path}/${id}` })).statusCode).toBe(204);
  });

  test('a plan another plan calls cannot be removed; both together can', async () => {
    const callee = await a.planWith(greeting(), `Callee ${next()}`);
    const caller = await a.planWith(content([node('start', 'start'), node('go', 'call_plan', { plan_id: callee.id })], [edge('start', 'next', 'go')]), `Caller ${next()}`);
    const refused = await a.call({ method: 'DELETE', url: `/visual-plans/${callee.id}` });
    expectCode(refused, 409, 'plan_in_use');
    expect(errorOf(refused).details).toEqual([{ path: String(callee.id), message: expect.stringContaining(`"${caller.name}" (${caller.id})`), plan_id: caller.id, plan_name: caller.name }]);
    const auditFrom = await lastAuditId();
    const both = await a.call({ method: 'DELETE', url: '/visual-plans', payload: [callee.id, caller.id] });
    expect(both.json()).toEqual({ count: 2 });
    expect((await auditAfter(auditFrom)).map((entry) => [entry.action, entry.entity_id])).toEqual([
      ['delete', String(callee.id)],
      ['delete', String(caller.id)],
    ]);
  });

  test('a removed plan takes its versions and references with it; a tenant with plans is in use', async () => {
    const destination = await a.destination();
    const plan = await a.planWith(using('destination_id', 'destination', destination));
    await a.published(plan.id, 2);
    expect((await a.call({ method: 'DELETE', url: `/visual-plans/${plan.id}` })).statusCode).toBe(204);
    expect(await suite.server.ctx.db.selectFrom('visual_plan_versions').select('id').where('plan_id', '=', plan.id).execute()).toEqual([]);
    expect((await a.call({ method: 'DELETE', url: `/destinations/${destination}` })).statusCode).toBe(204);
    expectCode(await suite.server.call({ method: 'DELETE', url: `/tenants/${a.member.tenantId}`, token: suite.admin }), 409, 'tenant_in_use');
  });

  test('a removal and a save naming the same record, at once: never both', async () => {
    for (let round = 0; round < 4; round++) {
      const destination = await a.destination();
      const plan = await a.create();
      const [saved, removed] = await Promise.all([a.save(plan.id, 1, using('destination_id', 'destination', destination)), a.call({ method: 'DELETE', url: `/destinations/${destination}` })]);
      if (saved.statusCode === 200) {
        expectCode(removed, 409, 'destination_in_use');
      } else {
        expectPlanErrors(saved, [{ code: 'reference_not_found', node_id: 'ref' }]);
        expect(removed.statusCode).toBe(204);
      }
    }
  });

  test('a plan removed while it is published: either publishes first, and no other code', async () => {
    for (let round = 0; round < 4; round++) {
      const plan = await a.planWith(greeting());
      const [published, removed] = await Promise.all([a.publish(plan.id, 2), a.call({ method: 'DELETE', url: `/visual-plans/${plan.id}` })]);
      expect(removed.statusCode, removed.body).toBe(204);
      if (published.statusCode !== 200) expectCode(published, 404, 'not_found');
    }
  });
});

test('a tenant removed while a plan is made in it: the removal says the tenant is in use, or the plan finds no tenant', async () => {
  for (let round = 0; round < 4; round++) {
    const tenant = await suite.server.call({ method: 'POST', url: '/tenants', token: suite.admin, payload: { name: `racing-${next()}` } });
    const tenantId = tenant.json<{ id: number }>().id;
    const [created, removed] = await Promise.all([
      suite.server.call({ method: 'POST', url: '/visual-plans', token: suite.admin, tenant: tenantId, payload: { name: 'Racer' } }),
      suite.server.call({ method: 'DELETE', url: `/tenants/${tenantId}`, token: suite.admin }),
    ]);
    if (created.statusCode === 201) {
      expectCode(removed, 409, 'tenant_in_use');
    } else {
      expectCode(created, 400, 'tenant_not_found');
      expect(removed.statusCode).toBe(204);
    }
  }
});

describe('admins', () => {
  test('work in the plan\'s own tenant without a tenant header; import needs one', async () => {
    const destination = await a.destination();
    const plan = await a.create();
    const asAdmin = (options: Parameters<TestServer['call']>[0]) => suite.server.call({ ...options, token: suite.admin });
    const saved = await asAdmin({ method: 'PUT', url: `/visual-plans/${plan.id}/document`, payload: { base_version: 1, ...content([node('start', 'start'), node('d', 'destination', { destination_id: destination })], [edge('start', 'next', 'd')]) } });
    expect(saved.statusCode, saved.body).toBe(200);
    const copy = await asAdmin({ method: 'POST', url: `/visual-plans/${plan.id}/duplicate` });
    expect(copy.statusCode, copy.body).toBe(201);
    expect(copy.json()).toMatchObject({ tenant_id: a.member.tenantId });
    expectCode(await asAdmin({ method: 'POST', url: '/visual-plans/import', payload: { name: 'Nowhere', ...greeting() } }), 400, 'no_tenant_provided');
    const imported = await asAdmin({ method: 'POST', url: '/visual-plans/import', tenant: a.member.tenantId, payload: { name: `Admin's ${next()}`, ...greeting() } });
    expect(imported.json()).toMatchObject({ tenant_id: a.member.tenantId });
  });
});
