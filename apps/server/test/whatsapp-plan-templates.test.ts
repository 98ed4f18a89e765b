/**
 * WhatsApp templates in plans and the 24-hour window of a plan's messages (issue 39,
 * docs/channels-whatsapp.md, "Templates in plans" and "The 24-hour customer service window"):
 * deliveries as Meta sends them, the local Graph API checking every template message as Meta
 * does (whatsapp-graph-templates.ts: 132000, 132001, 132012), and a session runtime on a clock
 * the test moves, for the window's edge.
 */
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { CallReportRecord, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createSessionRuntime, type SessionRuntime } from '../src/modules/sessions/sessions.service.ts';
import { parseTemplate } from '../src/lib/whatsapp-template-parse.ts';
import { createTenantMember, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge as edge, planNode as node, storePlan, testClock } from './sessions-helpers.ts';
import { type GraphApi, nowSeconds, signWhatsapp, startGraphApi, whatsappContacts, whatsappDelivery, whatsappText } from './whatsapp-graph.ts';
import { allTemplates } from './whatsapp-template-fixtures.ts';
import { webchatVisitor } from './webchat-visitor.ts';

const APP_SECRET = 'meta-app-secret-templates';
const TOKEN = 'EAAG-whatsapp-templates-token';
const WABA = '102290129340399';
const PHONE_IDS = { plan: '206540352242921', refused: '206540352242922', window: '206540352242923' };
const NUMBERS = { plan: '+551150000001', refused: '+551150000002', window: '+551150000003' };

let server: TestServer;
let member: TenantMember;
let graph: GraphApi;
let numbers: Record<keyof typeof NUMBERS, PhoneNumber>;
let scripts: LuaScriptRunner;
let runtime: SessionRuntime;
const clock = testClock('2026-11-20T10:00:00.000Z');
const ids: Record<string, number> = {};

const plan = (name: string, nodes: FixtureDocument['nodes'], edges: ReturnType<typeof edge>[]): FixtureDocument => ({
  name,
  format_version: 1,
  settings: { session_timeout_min: 3000, chat_text: '', sync_with_voice_text: false, webhook: '' },
  nodes,
  edges,
});

const orderParameters = [
  { key: 'header.1', value: '#1234' },
  { key: 'body.1', value: 'Ana' },
  { key: 'body.2', value: 'BRL 12.50', type: 'currency' },
  { key: 'body.3', value: 'May 5', type: 'date_time' },
  { key: 'button.2', value: 'abc' },
];

/** Every parameter type: a document, a video and an image header, a named body, a currency and a date, a URL's suffix, a coupon code. */
const everyTypePlan = plan(
  'Templates of every type',
  [
    node('start', 'start', {}),
    node('hello', 'play_message', { chat_text: 'Hello from the shop.' }),
    node('invoice', 'whatsapp_template', { template_name: 'invoice_document', language: 'en_US', parameters: [{ key: 'header.1', value: 'https://files.example.com/{{caller}}.pdf' }] }),
    node('video', 'whatsapp_template', { template_name: 'welcome_video', language: 'en_US', parameters: [{ key: 'header.1', value: 'https://files.example.com/hello.mp4' }] }),
    node('promo', 'whatsapp_template', {
      template_name: 'promo_image',
      language: 'pt_BR',
      parameters: [
        { key: 'header.1', value: 'https://files.example.com/promo.jpg' },
        { key: 'body.first_name', value: 'Ana' },
        { key: 'button.0', value: 'SALE25' },
      ],
    }),
    node('order', 'whatsapp_template', { template_name: 'order_update', language: 'en_US', parameters: orderParameters, buttons: ['Confirm', 'Cancel'] }),
    node('confirmed', 'play_message', { chat_text: 'Confirmed, thank you.' }),
    node('cancelled', 'play_message', { chat_text: 'Cancelled.' }),
    node('bye', 'hangup', {}),
  ],
  [
    edge('start', 'next', 'hello'),
    edge('hello', 'next', 'invoice'),
    edge('invoice', 'sent', 'video'),
    edge('video', 'sent', 'promo'),
    edge('promo', 'sent', 'order'),
    edge('order', 'button_1', 'confirmed'),
    edge('order', 'button_2', 'cancelled'),
    edge('confirmed', 'next', 'bye'),
  ],
);


/** A template Meta may refuse: the block takes failed and the plan says so. */
const refusedPlan = plan(
  'A refused template',
  [
    node('start', 'start', {}),
    node('order', 'whatsapp_template', { template_name: 'order_update', language: 'en_US', parameters: orderParameters, buttons: ['Confirm', 'Cancel'] }),
    node('refused', 'play_message', { chat_text: 'We could not send your order.' }),
  ],
  [edge('start', 'next', 'order'), edge('order', 'failed', 'refused')],
);

/** A menu, then a WhatsApp message to the customer (with or without a fallback template), then what it took. */
const windowPlan = (fallback: boolean) =>
  plan(
    fallback ? 'Notify with a fallback' : 'Notify',
    [
      node('start', 'start', {}),
      node('menu', 'voice_menu', { chat_text: 'Reply 1 for news.', options: [{ digits: '1', label: 'News' }] }),
      node('notify', 'send_message', {
        channel: 'whatsapp',
        to: '{{caller}}',
        text: 'Your ticket is open.',
        ...(fallback && { fallback_template_name: 'new_offer_ok', fallback_language: 'en_US', fallback_parameters: [{ key: 'body.1', value: 'Ana' }] }),
      }),
      node('ok', 'play_message', { chat_text: 'Sent.' }),
      node('ko', 'play_message', { chat_text: 'Not sent.' }),
    ],
    [edge('start', 'next', 'menu'), edge('menu', '1', 'notify'), edge('notify', 'sent', 'ok'), edge('notify', 'failed', 'ko')],
  );

/** An approved template with one body parameter, for the fallback. */
const fallbackTemplate = { id: '1010', name: 'new_offer_ok', language: 'en_US', status: 'APPROVED', category: 'MARKETING', components: [{ type: 'BODY', text: 'A new offer for {{1}}' }] };

function deliver(numberId: number, payload: unknown) {
  const body = JSON.stringify(payload);
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/whatsapp/${numberId}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) },
    payload: body,
  });
}

async function reportOf(sessionId: string): Promise<CallReportRecord> {
  const response = await server.call({ method: 'GET', url: `/reports?filter=${encodeURIComponent(JSON.stringify({ where: { session_id: sessionId } }))}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>()[0]!;
}

const sentTo = (user: string) => graph.sent.filter((request) => request.body.to === user);

beforeAll(async () => {
  graph = await startGraphApi();
  server = await startTestServer({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'wa-plan-templates');
  ids.everyType = await storePlan(server.ctx, member.tenantId, everyTypePlan);
  ids.refused = await storePlan(server.ctx, member.tenantId, refusedPlan);
  ids.window = await storePlan(server.ctx, member.tenantId, windowPlan(false));
  ids.windowFallback = await storePlan(server.ctx, member.tenantId, windowPlan(true));
  const create = async (key: keyof typeof NUMBERS, planId: number) => {
    const payload = { number: NUMBERS[key], provider: 'whatsapp', chat_plan_id: planId, whatsapp_phone_number_id: PHONE_IDS[key], whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET };
    const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<PhoneNumber>();
  };
  numbers = { plan: await create('plan', ids.everyType), refused: await create('refused', ids.refused), window: await create('window', ids.window) };
  // The number's templates as the sync stores them (Meta's components, parsed again when read).
  const templates = [...allTemplates, fallbackTemplate];
  const now = new Date().toISOString();
  for (const number of Object.values(numbers)) {
    for (const meta of templates) {
      const parsed = parseTemplate(meta);
      await server.ctx.db
        .insertInto('whatsapp_templates')
        .values({ tenant_id: member.tenantId, number_id: number.id, meta_id: meta.id, name: parsed.name, language: parsed.language, category: parsed.category, status: parsed.status, components: JSON.stringify(meta.components ?? []), rejected_reason: parsed.rejected_reason, synced_time: now })
        .execute();
    }
  }
  graph.setTemplates(WABA, { token: TOKEN, phoneNumberIds: Object.values(PHONE_IDS), templates });
  scripts = new LuaScriptRunner({ workers: 1 });
  runtime = createSessionRuntime(server.ctx, { scripts, clock });
});

afterAll(async () => {
  await runtime?.close();
  await scripts?.close();
  await server?.close();
  await graph?.close();
});

beforeEach(() => {
  graph.sent.length = 0;
});

describe('a template as a message', () => {
  test('a plan sends a template of every parameter type, typed as Meta types them, and a tap on a quick reply takes its exit', async () => {
    const user = '5511988880001';
    expect((await deliver(numbers.plan.id, whatsappDelivery(whatsappText(user, 'wamid.tpl-1', 'hi'), PHONE_IDS.plan))).statusCode).toBe(200);
    // The greeting first, as the plan says it; Meta took every template (the local Graph API refuses a parameter of the wrong shape or count).
    expect(sentTo(user).map((request) => [request.body.type, (request.body.template as { name: string } | undefined)?.name, request.status])).toEqual([
      ['text', undefined, 200],
      ['template', 'invoice_document', 200],
      ['template', 'welcome_video', 200],
      ['template', 'promo_image', 200],
      ['template', 'order_update', 200],
    ]);
    const components = sentTo(user)
      .slice(1)
      .map((request) => (request.body.template as { components: unknown[] }).components);
    expect(components[0]).toEqual([{ type: 'header', parameters: [{ type: 'document', document: { link: 'https://files.example.com/+5511988880001.pdf' } }] }]);
    expect(components[1]).toEqual([{ type: 'header', parameters: [{ type: 'video', video: { link: 'https://files.example.com/hello.mp4' } }] }]);
    expect(components[2]).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://files.example.com/promo.jpg' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana', parameter_name: 'first_name' }] },
      { type: 'button', sub_type: 'copy_code', index: '0', parameters: [{ type: 'coupon_code', coupon_code: 'SALE25' }] },
    ]);
    expect(components[3]).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: '#1234' }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ana' },
          { type: 'currency', currency: { fallback_value: 'BRL 12.50', code: 'BRL', amount_1000: 12500 } },
          { type: 'date_time', date_time: { fallback_value: 'May 5' } },
        ],
      },
      { type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', text: 'abc' }] },
    ]);
    // Meta's quick reply: `type: button`, its payload the button's text when the template set none.
    const tap = { contacts: whatsappContacts(user), messages: [{ from: user, id: 'wamid.tpl-2', timestamp: nowSeconds(), type: 'button', button: { payload: 'Confirm', text: 'Confirm' } }] };
    expect((await deliver(numbers.plan.id, whatsappDelivery(tap, PHONE_IDS.plan))).statusCode).toBe(200);
    expect(sentTo(user).at(-1)?.body.text).toEqual({ body: 'Confirmed, thank you.', preview_url: false });
    const report = await reportOf('whatsapp:wamid.tpl-1');
    expect(report.nodes.map((entry) => `${entry.node_id}:${entry.exit}`)).toEqual(['start:next', 'hello:next', 'invoice:sent', 'video:sent', 'promo:sent', 'order:button_1', 'confirmed:next', 'bye:null']);
    // What the customer read is on the transcript as text.
    const session = await server.ctx.sessions.find('whatsapp:wamid.tpl-1');
    expect(session?.session.transcript.map((entry) => entry.text)).toContain('Order #1234\n\nHi Ana, your total is BRL 12.50, due May 5.\n\nShop Example');
  });

  test("Meta's refusal takes failed, and the report names the reason", async () => {
    const user = '5511988880002';
    // As Meta answers a template whose parameters do not match its approved version.
    graph.failNext(132000, { message: 'Number of parameters does not match the expected number of params', details: 'body: number of localizable_params (2) does not match the expected number of params (3)' });
    await deliver(numbers.refused.id, whatsappDelivery(whatsappText(user, 'wamid.tpl-3', 'hi'), PHONE_IDS.refused));
    expect(sentTo(user).map((request) => request.status)).toEqual([400, 200]);
    expect(sentTo(user)[1]!.body.text).toEqual({ body: 'We could not send your order.', preview_url: false });
    const session = await server.ctx.sessions.find('whatsapp:wamid.tpl-3');
    expect(session?.session.path.find((entry) => entry.node_id === 'order')).toMatchObject({ exit: 'failed', reason: 'template_parameter_mismatch' });
  });
});

describe("the window of a plan's messages", () => {
  const customerWrote = async (user: string, at: string, id: string) => {
    await server.ctx.db
      .insertInto('whatsapp_messages')
      .values({ id, tenant_id: member.tenantId, number_id: numbers.window.id, direction: 'inbound', contact: user, session_id: null, status: 'received', sent_time: at, updated_time: at })
      .execute();
  };
  /** A chat the customer opened at 10:00, resumed `minutes` later by something other than a message of theirs. */
  async function resumedAfter(user: string, minutes: number, planId: number) {
    clock.set('2026-11-20T10:00:00.000Z');
    await customerWrote(user, '2026-11-20T10:00:00.000Z', `wamid.in-${user}`);
    const id = `window-${user}`;
    const started = await runtime.start({ id, tenant_id: member.tenantId, plan_id: planId, channel: 'chat', provider: 'whatsapp', caller: `+${user}`, called: NUMBERS.window });
    expect(started.actions).toContainEqual(expect.objectContaining({ type: 'reply', text: 'Reply 1 for news.' }));
    clock.set(new Date(Date.parse('2026-11-20T10:00:00.000Z') + minutes * 60_000).toISOString());
    const turn = await runtime.handleTurn(id, 'resume-1', { type: 'message', text: '1' });
    return { id, turn };
  }

  test('23:59 after the customer’s last message the message goes out', async () => {
    const user = '5511977770001';
    const { id, turn } = await resumedAfter(user, 23 * 60 + 59, ids.window);
    expect(sentTo(user).map((request) => request.body.text)).toEqual([{ body: 'Your ticket is open.', preview_url: false }]);
    expect(turn.actions).toContainEqual({ type: 'reply', text: 'Sent.' });
    expect((await reportOf(id)).nodes.find((entry) => entry.node_id === 'notify')).toMatchObject({ exit: 'sent' });
  });

  test('24:01 after it nothing is sent: the block takes failed, later replies are withheld, and the report names why', async () => {
    const user = '5511977770002';
    const { id, turn } = await resumedAfter(user, 24 * 60 + 1, ids.window);
    expect(sentTo(user)).toEqual([]);
    expect(turn.actions.filter((action) => action.type === 'reply')).toEqual([]);
    const report = await reportOf(id);
    expect(report.nodes.filter((entry) => entry.reason !== undefined).map((entry) => [entry.node_id, entry.exit, entry.reason])).toEqual([
      ['notify', 'failed', 'outside_customer_window'],
      ['ko', 'next', 'outside_customer_window'],
    ]);
  });

  test('24:01 after it the fallback template goes instead, and the block takes sent', async () => {
    const user = '5511977770003';
    const { turn } = await resumedAfter(user, 24 * 60 + 1, ids.windowFallback);
    expect(sentTo(user).map((request) => [request.body.type, request.status, (request.body.template as { name?: string } | undefined)?.name])).toEqual([['template', 200, 'new_offer_ok']]);
    expect(turn.actions).toContainEqual(expect.objectContaining({ type: 'send_message', status: 'sent', template: { name: 'new_offer_ok', language: 'en_US' } }));
  });
});

describe('other chats', () => {
  test('the web chat shows the template as its plain text, its quick replies as the buttons, and a tap takes that exit', async () => {
    const site = 'https://shop.example.com';
    const created = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: 'Shop chat', provider: 'webchat', chat_plan_id: ids.refused, webchat_origins: [site] } });
    expect(created.statusCode, created.body).toBe(201);
    const { widget, view } = webchatVisitor(() => server, () => created.json<PhoneNumber>().webchat_key, site);
    const opened = await widget('POST', '/conversations');
    expect(opened.statusCode, opened.body).toBe(200);
    const { conversation_id: id } = opened.json<WebchatConversation>();
    const shown = await view(id);
    expect(shown.messages.map((message) => [message.from, message.text])).toEqual([['plan', 'Order #1234\n\nHi Ana, your total is BRL 12.50, due May 5.\n\nShop Example']]);
    expect(shown.options).toEqual([
      { id: 'button_1', label: 'Confirm' },
      { id: 'button_2', label: 'Cancel' },
    ]);
    const tapped = await widget('POST', `/conversations/${id}/messages`, { id: 'tap-1', text: 'button_2' });
    expect(tapped.statusCode, tapped.body).toBeLessThan(300);
    const session = await server.ctx.sessions.find(id);
    expect(session?.session.path.find((entry) => entry.node_id === 'order')?.exit).toBe('button_2');
  });
});

describe('the plan’s warnings', () => {
  test('name a template not approved, one not synced and a parameter left unmapped', async () => {
    const document = plan(
      'Templates to check',
      [
        node('start', 'start', {}),
        node('offer', 'whatsapp_template', { template_name: 'new_offer', language: 'en_US', parameters: [{ key: 'body.1', value: '{{caller}}' }] }),
        node('order', 'whatsapp_template', { template_name: 'order_update', language: 'en_US', parameters: orderParameters.map((row) => (row.key === 'body.2' ? { ...row, value: '' } : row)) }),
        node('gone', 'whatsapp_template', { template_name: 'old_offer', language: 'en_US' }),
      ],
      [edge('start', 'next', 'offer'), edge('offer', 'sent', 'order'), edge('order', 'sent', 'gone')],
    );
    const planId = await storePlan(server.ctx, member.tenantId, document);
    const response = await server.call({ method: 'GET', url: `/visual-plans/${planId}/document`, token: member.token });
    expect(response.statusCode, response.body).toBe(200);
    const warnings = response.json<{ warnings: Array<{ code: string; node_id?: string; path: string }> }>().warnings.filter((warning) => warning.code.startsWith('template_'));
    expect(warnings.map((warning) => [warning.code, warning.node_id, warning.path])).toEqual([
      ['template_not_approved', 'offer', 'template_name'],
      ['template_parameter_unmapped', 'order', 'parameters.2.value'],
      ['template_not_synced', 'gone', 'template_name'],
    ]);
  });
});
