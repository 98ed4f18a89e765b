/**
 * Conversations the business starts on WhatsApp (docs/outbound.md, "WhatsApp"), end to end: the
 * one-call API and a campaign on a WhatsApp number, against the local Graph API of the tests
 * (whatsapp-graph.ts, which answers as Meta's messages endpoint documents it), with the customer's
 * reply and Meta's delivery statuses posted to the number's webhook as Meta signs them
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples, "Message
 * status updates": sent, delivered, read, and failed with `errors[]`; codes at
 * https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes).
 */
import type { CallReportRecord as CallReport, Campaign, CampaignProgress, CampaignResult, OutboundCall } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { coreCampaignCalls } from '../src/modules/campaigns/campaign-calls.ts';
import { createDispatcher } from '../src/modules/campaigns/dispatcher.ts';
import { uploadContacts } from './campaign-fixtures.ts';
import { createTenantMember, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge as edge, planNode as node, storePlan } from './sessions-helpers.ts';
import { type GraphApi, nowSeconds, signWhatsapp, startGraphApi, whatsappDelivery } from './whatsapp-graph.ts';

const APP_SECRET = 'meta-app-secret-39';
const TOKEN = 'EAAG-whatsapp-access-token-39';
const PHONE_ID = '106540352243939';
const NUMBER = '+551140003939';
/** The campaign's own number: its daily reach counts only the campaign's customers. */
const CAMPAIGN_PHONE_ID = '106540352243940';
const CAMPAIGN_NUMBER = '+551140003940';

let server: TestServer;
let member: TenantMember;
let graph: GraphApi;
let numberId: number;
let campaignNumberId: number;
let webchatId: number;
let reminderId: number;
let noticeId: number;
let pickupId: number;
let readyId: number;

const settings = { session_timeout_min: 30, chat_text: 'Closed for inactivity.', sync_with_voice_text: false, webhook: '' };
/** Greets the customer with the request's variables, asks, and thanks them by name once they answer. */
const reminderPlan: FixtureDocument = {
  name: 'Bill reminder',
  format_version: 1,
  settings,
  nodes: [
    node('start', 'start', {}),
    node('hello', 'play_message', { chat_text: 'Hello {{name}}, your bill of {{amount}} is due.' }),
    node('ask', 'voice_menu', { chat_text: 'Pay now?', options: [{ digits: '1', label: 'Pay' }, { digits: '2', label: 'Later' }] }),
    node('thanks', 'play_message', { chat_text: 'Thanks, {{name}}!' }),
    node('bye', 'hangup', {}),
  ],
  edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'ask'), edge('ask', '1', 'thanks'), edge('thanks', 'next', 'bye')],
};
/** A notice: one message, and the conversation ends. */
const noticePlan: FixtureDocument = {
  name: 'Shipping notice',
  format_version: 1,
  settings,
  nodes: [node('start', 'start', {}), node('notice', 'play_message', { chat_text: 'Order {{order}} shipped.' }), node('bye', 'hangup', {})],
  edges: [edge('start', 'next', 'notice'), edge('notice', 'next', 'bye')],
};

/** Meta's approved template the plans open conversations with (a `message_templates` entry). */
const orderTemplate = {
  id: '1039390001',
  name: 'order_ready',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [
    { type: 'BODY', text: 'Hello {{1}}, your order {{2}} is ready.', example: { body_text: [['Ana', 'A-1']] } },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Pick up' }, { type: 'QUICK_REPLY', text: 'Deliver' }] },
  ],
};
/** Opens the conversation with the template (the contact's name and order), then goes by the button the customer taps. */
const pickupPlan: FixtureDocument = {
  name: 'Order pickup',
  format_version: 1,
  settings,
  nodes: [
    node('start', 'start', {}),
    node('ready', 'whatsapp_template', {
      template_name: 'order_ready',
      language: 'en_US',
      parameters: [
        { key: 'body.1', value: '{{name}}' },
        { key: 'body.2', value: '{{order}}' },
      ],
      buttons: ['Pick up', 'Deliver'],
    }),
    node('pickup', 'play_message', { chat_text: 'See you at the shop, {{name}}.' }),
    node('bye', 'hangup', {}),
  ],
  edges: [edge('start', 'next', 'ready'), edge('ready', 'button_1', 'pickup'), edge('pickup', 'next', 'bye')],
};
/** The template alone: a notice. */
const readyPlan: FixtureDocument = {
  name: 'Order ready notice',
  format_version: 1,
  settings,
  nodes: [
    node('start', 'start', {}),
    node('ready', 'whatsapp_template', { template_name: 'order_ready', language: 'en_US', parameters: [{ key: 'body.1', value: '{{name}}' }, { key: 'body.2', value: '{{order}}' }] }),
    node('bye', 'hangup', {}),
  ],
  edges: [edge('start', 'next', 'ready'), edge('ready', 'sent', 'bye')],
};

/** Posts a delivery to the number's webhook as Meta does: the JSON text, signed over those very bytes. */
function deliver(value: Record<string, unknown>, to: { id: number; phoneId: string } = { id: numberId, phoneId: PHONE_ID }) {
  const body = JSON.stringify(whatsappDelivery(value, to.phoneId));
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/whatsapp/${to.id}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) },
    payload: body,
  });
}

/** Meta's status update of a message we sent (payload examples, "Message status updates"). */
const status = (id: string, to: string, name: string, errors?: Array<{ code: number; title: string }>) => ({
  statuses: [{ id, status: name, timestamp: nowSeconds(), recipient_id: to.slice(1), ...(errors && { errors }) }],
});

/** The customer wrote to the number `hoursAgo` hours ago: within 24 hours, their window is open to free-form messages. */
async function customerWrote(customer: string, hoursAgo: number): Promise<void> {
  const at = new Date(Date.now() - hoursAgo * 3600_000).toISOString();
  await server.ctx.db
    .insertInto('whatsapp_messages')
    .values({ id: `wamid.in.${customer}.${hoursAgo}`, tenant_id: member.tenantId, number_id: numberId, direction: 'inbound', contact: customer.slice(1), session_id: null, status: 'received', sent_time: at, updated_time: at })
    .execute();
}

const place = (payload: Record<string, unknown>) => server.call({ method: 'POST', url: '/outbound-calls', token: member.token, payload });
async function callOf(sessionId: string): Promise<OutboundCall> {
  const response = await server.call({ method: 'GET', url: `/outbound-calls/${sessionId}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<OutboundCall>();
}
async function reportOf(sessionId: string): Promise<CallReport> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('where', { session_id: sessionId })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  const [report] = response.json<CallReport[]>();
  expect(report, `a report of ${sessionId}`).toBeDefined();
  return report!;
}
const textsTo = (customer: string) =>
  graph.sent.filter((request) => request.body.to === customer.slice(1)).map((request) => request.body.text?.body ?? (request.body.interactive?.body as { text?: string } | undefined)?.text ?? request.body.type);

beforeAll(async () => {
  graph = await startGraphApi();
  server = await startTestServer({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'waoutbound');
  reminderId = await storePlan(server.ctx, member.tenantId, reminderPlan);
  noticeId = await storePlan(server.ctx, member.tenantId, noticePlan);
  pickupId = await storePlan(server.ctx, member.tenantId, pickupPlan);
  readyId = await storePlan(server.ctx, member.tenantId, readyPlan);
  const create = async (payload: Record<string, unknown>) => {
    const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: number }>().id;
  };
  numberId = await create({ number: NUMBER, provider: 'whatsapp', chat_plan_id: reminderId, whatsapp_phone_number_id: PHONE_ID, whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET });
  campaignNumberId = await create({ number: CAMPAIGN_NUMBER, provider: 'whatsapp', chat_plan_id: readyId, whatsapp_phone_number_id: CAMPAIGN_PHONE_ID, whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET });
  webchatId = await create({ number: 'WA outbound site chat', provider: 'webchat', chat_plan_id: reminderId });
  // The template as Meta has it approved, and as a sync stored it for each number.
  graph.setTemplates('102290129343939', { token: TOKEN, phoneNumberIds: [PHONE_ID, CAMPAIGN_PHONE_ID], templates: [orderTemplate] });
  for (const id of [numberId, campaignNumberId]) {
    await server.ctx.db
      .insertInto('whatsapp_templates')
      .values({ tenant_id: member.tenantId, number_id: id, meta_id: orderTemplate.id, name: orderTemplate.name, language: orderTemplate.language, category: 'utility', status: 'approved', components: JSON.stringify(orderTemplate.components), synced_time: new Date().toISOString() })
      .execute();
  }
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
});

beforeEach(() => {
  graph.sent.length = 0;
});

describe('the one-call API on a WhatsApp number', () => {
  test('outside the window a template opens the conversation with the request’s variables, and the customer’s quick reply continues the plan', async () => {
    // Never wrote to the number: only a template may reach them.
    const customer = '+5511988880010';
    const placed = await place({ from: NUMBER, to: customer, plan_id: pickupId, variables: { name: 'Ana', order: 'A-17' } });
    expect(placed.statusCode, placed.body).toBe(202);
    const { session_id } = placed.json<{ session_id: string }>();
    expect(graph.sent).toHaveLength(1);
    expect(graph.sent[0]!).toMatchObject({ status: 200, body: { to: customer.slice(1), type: 'template', template: { name: 'order_ready', language: { code: 'en_US' } } } });
    const components = (graph.sent[0]!.body.template as { components: Array<{ type: string; parameters: Array<{ text?: string }> }> }).components;
    expect(components.find((component) => component.type === 'body')?.parameters.map((parameter) => parameter.text)).toEqual(['Ana', 'A-17']);
    expect(await callOf(session_id)).toMatchObject({ state: 'in_progress', dial_status: 'answer' });
    expect((await server.ctx.sessions.find(session_id))!.session).toMatchObject({ direction: 'outbound', status: 'waiting', node_id: 'ready' });

    // The customer taps "Pick up" (a template's quick reply comes as a `button` message).
    const tap = {
      contacts: [{ profile: { name: 'Ana' }, wa_id: customer.slice(1) }],
      messages: [{ context: { from: NUMBER.slice(1), id: graph.sent[0]!.id }, from: customer.slice(1), id: 'wamid.in.tap.1', timestamp: nowSeconds(), type: 'button', button: { payload: 'Pick up', text: 'Pick up' } }],
    };
    expect((await deliver(tap)).statusCode).toBe(200);
    // Their reply opened the window: the plan's free-form answer goes.
    expect(textsTo(customer).slice(1)).toEqual(['See you at the shop, Ana.']);
    const report = await reportOf(session_id);
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'answer', caller: customer, called: NUMBER });
    expect(report.nodes.map((entry) => [entry.node_id, entry.exit])).toEqual([
      ['start', 'next'],
      ['ready', 'button_1'],
      ['pickup', 'next'],
      ['bye', null],
    ]);
  });

  test('opens the conversation with the request’s variables, and the customer’s reply continues the plan to its end', async () => {
    const customer = '+5511988880001';
    await customerWrote(customer, 2);
    const placed = await place({ from: NUMBER, to: customer, variables: { name: 'Ana', amount: 'R$ 10,50' } });
    expect(placed.statusCode, placed.body).toBe(202);
    const { session_id } = placed.json<{ session_id: string }>();

    // No ringing: the plan ran at once, its first turn went to the customer, Meta took it.
    expect(textsTo(customer)).toEqual(['Hello Ana, your bill of R$ 10,50 is due.', 'Pay now?']);
    expect(graph.sent[0]!.url).toBe(`/graph/v23.0/${PHONE_ID}/messages`);
    expect(await callOf(session_id)).toMatchObject({ state: 'in_progress', dial_status: 'answer', from: NUMBER, to: customer, plan_name: 'Bill reminder' });
    const { session } = (await server.ctx.sessions.find(session_id))!;
    expect(session).toMatchObject({ direction: 'outbound', channel: 'chat', provider: 'whatsapp', caller: customer, called: NUMBER, status: 'waiting' });

    // The customer taps "Pay": the same conversation goes on, no new one starts.
    const reply = {
      contacts: [{ profile: { name: 'Ana' }, wa_id: customer.slice(1) }],
      messages: [{ from: customer.slice(1), id: 'wamid.in.pay.1', timestamp: nowSeconds(), type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: '1', title: 'Pay' } } }],
    };
    expect((await deliver(reply)).statusCode).toBe(200);
    expect(textsTo(customer).slice(2)).toEqual(['Thanks, Ana!']);
    expect(await server.ctx.sessions.find('whatsapp:wamid.in.pay.1')).toBeUndefined();

    const call = await callOf(session_id);
    expect(call).toMatchObject({ state: 'ended', dial_status: 'answer' });
    // The report holds the whole exchange: every block, the answer, the variables, the messages sent.
    const report = await reportOf(session_id);
    expect(report).toMatchObject({ direction: 'outbound', channel: 'chat', provider: 'whatsapp', caller: customer, called: NUMBER, dial_status: 'answer', failure: null });
    expect(report.nodes.map((entry) => [entry.node_id, entry.exit])).toEqual([
      ['start', 'next'],
      ['hello', 'next'],
      ['ask', '1'],
      ['thanks', 'next'],
      ['bye', null],
    ]);
    expect(report.variables).toMatchObject({ name: 'Ana', amount: 'R$ 10,50' });
    expect(report.whatsapp_messages?.map((message) => message.status)).toEqual(['accepted', 'accepted', 'accepted']);
  });

  test('Meta’s statuses of the opening message show on the report: sent, delivered, read', async () => {
    const customer = '+5511988880002';
    await customerWrote(customer, 1);
    const placed = await place({ from: NUMBER, to: customer, plan_id: noticeId, variables: { order: 'A-17' } });
    expect(placed.statusCode, placed.body).toBe(202);
    const { session_id } = placed.json<{ session_id: string }>();
    expect(textsTo(customer)).toEqual(['Order A-17 shipped.']);
    // A notice: the plan said its piece and ended; the call is over, answered.
    expect(await callOf(session_id)).toMatchObject({ state: 'ended', dial_status: 'answer' });
    const opening = graph.sent[0]!.id!;
    for (const name of ['sent', 'delivered', 'read']) {
      expect((await deliver(status(opening, customer, name))).statusCode).toBe(200);
      expect((await reportOf(session_id)).whatsapp_messages).toEqual([expect.objectContaining({ id: opening, status: name, error: null })]);
    }
  });

  test('a failed opening message (131026) ends the conversation failed, with Meta’s code on the call and its report', async () => {
    const customer = '+5511988880003';
    await customerWrote(customer, 3);
    const { session_id } = (await place({ from: NUMBER, to: customer, variables: { name: 'Bruno', amount: '20' } })).json<{ session_id: string }>();
    const opening = graph.sent[0]!.id!;
    await deliver(status(opening, customer, 'sent'));
    expect((await deliver(status(opening, customer, 'failed', [{ code: 131026, title: 'Message undeliverable' }]))).statusCode).toBe(200);
    expect(await callOf(session_id)).toMatchObject({ state: 'ended', dial_status: 'failed' });
    const report = await reportOf(session_id);
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'failed', disposition: 'failed', failure: { code: 'message_undelivered', message: '131026 Message undeliverable' } });
    expect(report.whatsapp_messages?.[0]).toMatchObject({ id: opening, status: 'failed', error: '131026 Message undeliverable' });
  });

  test('a free-form first message outside the customer’s window is not sent: the call fails clearly, with a report', async () => {
    const customer = '+5511988880004';
    // Last wrote 25 hours ago: the window closed an hour ago.
    await customerWrote(customer, 25);
    const placed = await place({ from: NUMBER, to: customer, variables: { name: 'Carla', amount: '30' } });
    expect(placed.statusCode, placed.body).toBe(202);
    const { session_id } = placed.json<{ session_id: string }>();
    expect(graph.sent).toEqual([]);
    expect(await callOf(session_id)).toMatchObject({ state: 'ended', dial_status: 'failed' });
    const report = await reportOf(session_id);
    expect(report).toMatchObject({ direction: 'outbound', dial_status: 'failed', disposition: 'failed', failure: { code: 'outside_customer_window' } });
    expect(report.nodes.map((entry) => entry.node_id)).toEqual(['start', 'hello', 'ask']);
  });

  test('a web chat number still cannot start anything; a WhatsApp number can be a campaign’s', async () => {
    const refused = await place({ from: 'WA outbound site chat', to: '+5511988880005', variables: {} });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe('outbound_number_cannot_call');
    const campaign = (payload: Record<string, unknown>) => server.call({ method: 'POST', url: '/campaigns', token: member.token, payload: { plan_id: reminderId, ...payload } });
    const webchat = await campaign({ name: 'Site chat campaign', number_id: webchatId });
    expect(webchat.statusCode).toBe(400);
    expect(errorOf(webchat).code).toBe('number_cannot_call');
    expect((await campaign({ name: 'WhatsApp campaign', number_id: numberId })).statusCode).toBe(201);
  });
});

describe('a WhatsApp campaign', () => {
  test('keeps under the number’s daily reach: 3 of 5 contacts reached, 2 wait, and each contact’s message status shows', async () => {
    // Meta's lowest tier is 250; 3 here, so that 5 contacts cross it.
    await server.ctx.db.updateTable('numbers').set({ whatsapp_daily_limit: 3 }).where('id', '=', campaignNumberId).execute();
    const created = await server.call({ method: 'POST', url: '/campaigns', token: member.token, payload: { name: 'Reach', plan_id: readyId, number_id: campaignNumberId, calls_per_second: 10 } });
    expect(created.statusCode, created.body).toBe(201);
    const campaign = created.json<Campaign>();
    const phones = ['+5511977770001', '+5511977770002', '+5511977770003', '+5511977770004', '+5511977770005'];
    const csv = `phone,name,order\n${phones.map((phone, index) => `${phone},Person ${index + 1},B-${index + 1}`).join('\n')}\n`;
    const uploaded = await uploadContacts(server, member.token, campaign.id, csv, { phone: 'phone', name: 'name', variables: { name: 'name', order: 'order' } });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    expect((await server.call({ method: 'POST', url: `/campaigns/${campaign.id}/start`, token: member.token })).statusCode).toBe(200);

    const dispatcher = createDispatcher(server.ctx, { calls: coreCampaignCalls(server.ctx), schedule: (_at, run) => run(), intervalMs: 1000 });
    for (let pass = 0; pass < 3; pass++) {
      await dispatcher.pass();
      await dispatcher.placed();
    }
    await dispatcher.stop();
    const progress = (await server.call({ method: 'GET', url: `/campaigns/${campaign.id}/progress`, token: member.token })).json<CampaignProgress>();
    expect(progress).toMatchObject({ status: 'running', done: 3, pending: 2, in_progress: 0, attempts: 3, by_outcome: expect.objectContaining({ answer: 3, failed: 0 }) });
    expect(progress.reach).toMatchObject({ reached: 3, limit: 3 });
    expect(Date.parse(progress.reach!.frees_at!)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    // Templates, each with the contact's columns.
    // Placed at once, they may reach the Graph API in any order.
    const sentTo = (phone: string) => graph.sent.find((request) => request.body.to === phone.slice(1));
    expect(graph.sent).toHaveLength(3);
    expect(phones.slice(0, 3).map((phone) => [sentTo(phone)?.body.type, JSON.stringify(sentTo(phone)?.body.template)])).toEqual(
      phones.slice(0, 3).map((_, index) => ['template', expect.stringContaining(`"text":"B-${index + 1}"`)]),
    );

    // The one-call API keeps to the same reach: refused, nothing stored, nothing sent.
    const stored = await server.ctx.db.selectFrom('outbound_calls').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const refused = await place({ from: CAMPAIGN_NUMBER, to: '+5511977770009', variables: { name: 'Caio', order: 'C-1' } });
    expect(refused.statusCode).toBe(429);
    expect(errorOf(refused)).toMatchObject({ code: 'whatsapp_daily_limit_reached', params: { reached: 3, limit: 3 } });
    expect(graph.sent).toHaveLength(3);
    expect((await server.ctx.db.selectFrom('outbound_calls').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n).toEqual(stored.n);

    // Meta's statuses arrive: each contact's row shows its opening message's latest.
    const [first, second, third] = phones.slice(0, 3).map((phone) => sentTo(phone)!.id!);
    const campaignHook = { id: campaignNumberId, phoneId: CAMPAIGN_PHONE_ID };
    await deliver(status(first!, phones[0]!, 'read'), campaignHook);
    await deliver(status(second!, phones[1]!, 'delivered'), campaignHook);
    await deliver(status(third!, phones[2]!, 'failed', [{ code: 131026, title: 'Message undeliverable' }]), campaignHook);
    const results = (await server.call({ method: 'GET', url: `/campaigns/${campaign.id}/results`, token: member.token })).json<CampaignResult[]>();
    expect(results.map((row) => [row.phone, row.state, row.message_status, row.message_error])).toEqual([
      [phones[0], 'done', 'read', null],
      [phones[1], 'done', 'delivered', null],
      [phones[2], 'done', 'failed', '131026 Message undeliverable'],
      [phones[3], 'pending', null, null],
      [phones[4], 'pending', null, null],
    ]);
    // A message Meta could not deliver does not count against the limit: a place is free again.
    const after = (await server.call({ method: 'GET', url: `/campaigns/${campaign.id}/progress`, token: member.token })).json<CampaignProgress>();
    expect(after.reach).toMatchObject({ reached: 2, limit: 3 });
  });
});
