/**
 * The agent's composer and WhatsApp's 24-hour customer service window (issue 39, docs/conversations.md
 * "The customer service window"), through the local Graph API (whatsapp-graph.ts, Meta's pages cited
 * there). The clock is Meta's: each customer message carries the `timestamp` Meta dates it by, so a
 * message "written 23 h 59 min ago" puts the chat one minute before the window's end.
 */
import type { ConversationDetail, ConversationEvent, ConversationMessage, Destination, PhoneNumber, WebchatConversation, WhatsAppTemplate } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { composerTemplates, storeTemplates } from './composer-templates.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';
import { webchatVisitor } from './webchat-visitor.ts';
import { type GraphApi, signWhatsapp, startGraphApi, whatsappDelivery, whatsappText } from './whatsapp-graph.ts';
import { subscribeConversations } from '../src/modules/conversations/conversation-events.ts';

const APP_SECRET = 'meta-app-secret-window';
const TOKEN = 'EAAG-window-token';
const PHONE_ID = '106540352242990';
const WABA_ID = '102290129340990';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let server: TestServer;
let graph: GraphApi;
let member: TenantMember;
let number: PhoneNumber;
let webchatNumber: PhoneNumber;
let messageCount = 0;
const SITE = 'https://shop.example.com';
const { widget } = webchatVisitor(() => server, () => webchatNumber.webchat_key!, SITE);

const api = (method: 'GET' | 'POST', url: string, payload?: object) => server.call({ method, url, token: member.token, ...(payload && { payload }) });

/** A customer's text as Meta delivers it, written `agoMs` ago by Meta's clock. */
async function customerWrites(user: string, text: string, agoMs = 0): Promise<string> {
  const id = `wamid.window.${++messageCount}`;
  const timestamp = String(Math.floor((Date.now() - agoMs) / 1000));
  const body = JSON.stringify(whatsappDelivery(whatsappText(user, id, text, timestamp), PHONE_ID));
  const answer = await server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/whatsapp/${number.id}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) },
    payload: body,
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return id;
}

/** A chat the customer `user` opened `agoMs` ago, handed to the queue and taken by the member. */
async function takenChat(user: string, agoMs: number): Promise<number> {
  const first = await customerWrites(user, 'Hello', agoMs);
  const record = await until('the conversation', () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', `whatsapp:${first}`).executeTakeFirst());
  expect((await api('POST', `/conversations/${record.id}/take`)).statusCode).toBe(200);
  return record.id;
}

const detailOf = async (id: number) => (await api('GET', `/conversations/${id}`)).json<ConversationDetail>();
const storedMessages = (id: number) => server.ctx.db.selectFrom('conversation_messages').select(['author', 'text']).where('conversation_id', '=', id).where('author', '=', 'agent').execute();
const sentTo = (user: string) => graph.sent.filter((request) => request.body.to === user);

beforeAll(async () => {
  graph = await startGraphApi();
  server = await startTestServer({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'window');
  const queue = await api('POST', '/destinations', { name: 'Window desk', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] });
  expect(queue.statusCode, queue.body).toBe(201);
  const plan = await storePlan(server.ctx, member.tenantId, { name: 'Window plan', ...handOffPlan(queue.json<Destination>().id, { timeoutS: 600, onAnswer: 'Back to the bot.' }) });
  const created = await api('POST', '/numbers', { number: '+551140003901', provider: 'whatsapp', chat_plan_id: plan, whatsapp_phone_number_id: PHONE_ID, whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET });
  expect(created.statusCode, created.body).toBe(201);
  number = created.json<PhoneNumber>();
  const web = await api('POST', '/numbers', { number: '+551140003902', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(web.statusCode, web.body).toBe(201);
  webchatNumber = web.json<PhoneNumber>();
  expect((await server.call({ method: 'PUT', url: '/agents/me', token: member.token, payload: { status: 'online' } })).statusCode).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
});

beforeEach(() => {
  graph.sent.length = 0;
});

describe('the window’s edge', () => {
  test('23 h 59 min after the customer’s last message the agent’s text goes out; the detail says the window closes a minute later', async () => {
    const user = '5511990000001';
    const id = await takenChat(user, 23 * HOUR + 59 * MINUTE);
    const detail = await detailOf(id);
    const left = Date.parse(detail.window_closes_at!) - Date.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(MINUTE);

    const reply = await api('POST', `/conversations/${id}/messages`, { text: 'Still here: your order left today.' });
    expect(reply.statusCode, reply.body).toBe(201);
    expect(reply.json<ConversationMessage>()).toMatchObject({ author: 'agent', text: 'Still here: your order left today.', template: null });
    // (After the plan's own lines, sent within the window too.)
    expect(sentTo(user).map((request) => request.body.text?.body)).toContain('Still here: your order left today.');
  });

  test('24 h 01 min after it the text, a link and a file are refused with customer_window_closed, and nothing is stored or sent', async () => {
    const user = '5511990000002';
    const id = await takenChat(user, 24 * HOUR + MINUTE);
    const detail = await detailOf(id);
    const closedFor = Date.now() - Date.parse(detail.window_closes_at!);
    expect(closedFor).toBeGreaterThanOrEqual(MINUTE - 1000);
    expect(closedFor).toBeLessThan(2 * MINUTE);

    const before = await storedMessages(id);
    const text = await api('POST', `/conversations/${id}/messages`, { text: 'Are you there?' });
    expect(errorOf(text)).toMatchObject({ statusCode: 409, code: 'customer_window_closed' });
    const link = await api('POST', `/conversations/${id}/messages`, { text: '', attachment: { url: 'https://files.example/invoice.pdf', content_type: 'application/pdf', name: 'invoice.pdf' } });
    expect(errorOf(link)).toMatchObject({ statusCode: 409, code: 'customer_window_closed' });
    const boundary = 'window-boundary';
    const file = await server.call({
      method: 'POST',
      url: `/conversations/${id}/attachments`,
      token: member.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
    });
    expect(errorOf(file)).toMatchObject({ statusCode: 409, code: 'customer_window_closed' });
    expect(await storedMessages(id)).toEqual(before);
    expect(await server.ctx.db.selectFrom('conversation_attachments').select('id').where('conversation_id', '=', id).execute()).toEqual([]);
    expect(sentTo(user)).toEqual([]);
  });

  test('the customer writing again reopens it: the live event and the detail say 24 hours from now, and free text goes out', async () => {
    const user = '5511990000003';
    const id = await takenChat(user, 30 * HOUR);
    expect(errorOf(await api('POST', `/conversations/${id}/messages`, { text: 'Hi?' })).code).toBe('customer_window_closed');
    const events: ConversationEvent[] = [];
    const stop = subscribeConversations(server.ctx.bus, ({ event }) => void events.push(event), { tenantId: member.tenantId });
    try {
      await customerWrites(user, 'I am back');
      const heard = await until('the customer’s message', () => events.find((event) => event.type === 'conversation.message' && event.message.author === 'customer'));
      const closesAt = heard.type === 'conversation.message' ? heard.window_closes_at : undefined;
      expect(Math.abs(Date.parse(closesAt!) - (Date.now() + 24 * HOUR))).toBeLessThan(MINUTE);
      expect((await detailOf(id)).window_closes_at).toBe(closesAt);
    } finally {
      stop();
    }
    expect((await api('POST', `/conversations/${id}/messages`, { text: 'Welcome back!' })).statusCode).toBe(201);
    expect(sentTo(user).map((request) => request.body.text?.body)).toEqual(['Welcome back!']);
  });

  test('a web chat has no window: null, and its agent writes whenever', async () => {
    const started = await widget('POST', '/conversations');
    expect(started.statusCode, started.body).toBe(200);
    const sessionId = started.json<WebchatConversation>().conversation_id;
    const record = await until('the web chat’s conversation', () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());
    expect((await api('POST', `/conversations/${record.id}/take`)).statusCode).toBe(200);
    // As old as a WhatsApp chat past its window: a web chat does not care.
    await server.ctx.db.updateTable('conversations').set({ created_at: new Date(Date.now() - 30 * HOUR).toISOString() }).where('id', '=', record.id).execute();
    expect((await detailOf(record.id)).window_closes_at).toBeNull();
    expect((await api('POST', `/conversations/${record.id}/messages`, { text: 'Hello from the desk' })).statusCode).toBe(201);
  });
});

describe('templates from the composer', () => {
  const user = '5511990000010';
  let id: number;

  beforeAll(async () => {
    graph.setTemplates(WABA_ID, { token: TOKEN, phoneNumberIds: [PHONE_ID], templates: composerTemplates });
    await storeTemplates(server.ctx, member.tenantId, number.id, composerTemplates);
    // The customer last wrote 30 hours ago: only a template reaches them.
    id = await takenChat(user, 30 * HOUR);
  });

  const agentMessages = () => storedMessages(id);
  const sendTemplate = (template: object) => api('POST', `/conversations/${id}/messages`, { template });

  test('the number’s approved templates are offered, the paused one is not; a web chat has none', async () => {
    const offered = (await api('GET', `/conversations/${id}/templates`)).json<WhatsAppTemplate[]>();
    expect(offered.map((template) => `${template.name} ${template.language}`)).toEqual(['invoice_ready en_US', 'order_shipped en_US', 'welcome_video pt_BR']);
    expect(offered.find((template) => template.name === 'order_shipped')!.parameters.map((parameter) => `${parameter.key}:${parameter.type}`)).toEqual([
      'header.1:image',
      'body.1:text',
      'body.2:text',
      'body.3:text',
      'button.0:text',
    ]);
    // The web chat's conversation of the tests above.
    const webchatChat = await server.ctx.db.selectFrom('conversations').select('id').where('provider', '=', 'webchat').executeTakeFirstOrThrow();
    expect((await api('GET', `/conversations/${webchatChat.id}/templates`)).json()).toEqual([]);
  });

  test('outside the window a template goes with every parameter type, typed as Meta types them, and the transcript keeps its text marked as the template', async () => {
    const shipped = await sendTemplate({
      name: 'order_shipped',
      language: 'en_US',
      values: { 'header.1': 'https://shop.example.com/parcel.jpg', 'body.1': 'Ana', 'body.2': 'BRL 120.50', 'body.3': 'December 24, 2026', 'button.0': 'A-123' },
      types: { 'body.2': 'currency', 'body.3': 'date_time' },
    });
    expect(shipped.statusCode, shipped.body).toBe(201);
    const message = shipped.json<ConversationMessage>();
    expect(message).toMatchObject({ author: 'agent', template: { name: 'order_shipped', language: 'en_US' }, text: 'Hi Ana, your order of BRL 120.50 ships on December 24, 2026.\n\nVoxplan Shop' });
    const video = await sendTemplate({ name: 'welcome_video', language: 'pt_BR', values: { 'header.1': 'https://shop.example.com/welcome.mp4', 'body.1': 'Ana' } });
    expect(video.statusCode, video.body).toBe(201);
    const invoice = await sendTemplate({ name: 'invoice_ready', language: 'en_US', values: { 'header.1': 'https://shop.example.com/invoice-77.pdf', 'body.customer': 'Ana Souza' } });
    expect(invoice.statusCode, invoice.body).toBe(201);

    const [first, second, third] = sentTo(user).map((request) => request.body as unknown as { type: string; template: { name: string; language: { code: string }; components: unknown[] } });
    expect(first).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: user,
      type: 'template',
      template: {
        name: 'order_shipped',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://shop.example.com/parcel.jpg' } }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'currency', currency: { fallback_value: 'BRL 120.50', code: 'BRL', amount_1000: 120_500 } },
              { type: 'date_time', date_time: { fallback_value: 'December 24, 2026' } },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-123' }] },
        ],
      },
    });
    expect(second!.template.components).toEqual([
      { type: 'header', parameters: [{ type: 'video', video: { link: 'https://shop.example.com/welcome.mp4' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
    ]);
    expect(third!.template.components).toEqual([
      { type: 'header', parameters: [{ type: 'document', document: { link: 'https://shop.example.com/invoice-77.pdf' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Ana Souza', parameter_name: 'customer' }] },
    ]);
    // Meta took each (the local Graph API checks them as Meta does): recorded with the template's name.
    expect(sentTo(user).map((request) => request.status)).toEqual([200, 200, 200]);
    const recorded = await server.ctx.db.selectFrom('whatsapp_messages').select(['template_name', 'session_id']).where('contact', '=', user).where('direction', '=', 'outbound').orderBy('sent_time').execute();
    expect(recorded.map((row) => row.template_name)).toEqual(['order_shipped', 'welcome_video', 'invoice_ready']);

    const detail = await detailOf(id);
    expect(detail.messages.filter((stored) => stored.author === 'agent').map((stored) => [stored.template?.name, stored.text])).toEqual([
      ['order_shipped', 'Hi Ana, your order of BRL 120.50 ships on December 24, 2026.\n\nVoxplan Shop'],
      ['welcome_video', 'Olá Ana! Veja como usar o seu plano.'],
      ['invoice_ready', 'Dear Ana Souza, your invoice is attached.'],
    ]);
    // Still outside the window: a template does not open it.
    expect(Date.parse(detail.window_closes_at!)).toBeLessThan(Date.now());
  });

  test('each refusal answers its code, and nothing is stored nor sent', async () => {
    const before = await agentMessages();
    const shippedValues = { 'header.1': 'https://shop.example.com/parcel.jpg', 'body.1': 'Ana', 'body.2': 'BRL 120.50', 'body.3': 'Tomorrow', 'button.0': 'A-123' };
    const refusals: Array<[object, number, string]> = [
      [{ name: 'no_such_template', language: 'en_US', values: {} }, 422, 'template_not_found'],
      [{ name: 'order_shipped', language: 'pt_BR', values: shippedValues }, 422, 'template_not_found'],
      [{ name: 'spring_promo', language: 'en_US', values: {} }, 422, 'template_not_approved'],
      [{ name: 'order_shipped', language: 'en_US', values: { ...shippedValues, 'body.1': '' } }, 422, 'template_value_missing'],
      [{ name: 'order_shipped', language: 'en_US', values: { ...shippedValues, 'body.2': 'twelve reais' }, types: { 'body.2': 'currency' } }, 422, 'template_value_invalid'],
      [{ name: 'order_shipped', language: 'en_US', values: { ...shippedValues, 'header.1': 'parcel.jpg' } }, 422, 'template_value_invalid'],
      [{ name: 'order_shipped', language: 'en_US', values: shippedValues, types: { 'body.2': 'money' } }, 400, 'invalid_input'],
      [{ language: 'en_US', values: {} }, 400, 'invalid_input'],
    ];
    for (const [template, statusCode, code] of refusals) expect(errorOf(await sendTemplate(template)), JSON.stringify(template)).toMatchObject({ statusCode, code });
    expect(sentTo(user)).toEqual([]);

    // Approved here but not at Meta (paused there since the last sync): Meta's 132001, told as Meta's refusal.
    await server.ctx.db.updateTable('whatsapp_templates').set({ status: 'approved' }).where('name', '=', 'spring_promo').execute();
    const meta = errorOf(await sendTemplate({ name: 'spring_promo', language: 'en_US', values: {} }));
    expect(meta).toMatchObject({ statusCode: 422, code: 'whatsapp_meta_refused', params: { reason: 'template_missing (132001)' } });
    expect(sentTo(user).map((request) => request.status)).toEqual([404]);
    // Meta refusing the customer (131026, undeliverable): refused too.
    graph.failNext(131026, { message: 'Message undeliverable' });
    expect(errorOf(await sendTemplate({ name: 'welcome_video', language: 'pt_BR', values: { 'header.1': 'https://shop.example.com/welcome.mp4', 'body.1': 'Ana' } }))).toMatchObject({
      statusCode: 422,
      code: 'whatsapp_meta_refused',
      params: { reason: 'undeliverable (131026)' },
    });
    expect(await agentMessages()).toEqual(before);

    // A web chat takes no templates.
    const web = await server.ctx.db.selectFrom('conversations').select('id').where('provider', '=', 'webchat').executeTakeFirstOrThrow();
    expect(errorOf(await api('POST', `/conversations/${web.id}/messages`, { template: { name: 'order_shipped', language: 'en_US', values: shippedValues } }))).toMatchObject({ statusCode: 422, code: 'number_not_whatsapp' });
  });
});
