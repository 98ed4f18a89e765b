/**
 * WhatsApp Cloud API end to end: deliveries as Meta sends them (the documented webhook payloads,
 * signed with the app secret over the raw body), and a local server playing the Graph API's
 * messages endpoint, which records what the channel sends and answers as Meta does
 * (whatsapp-graph.ts, with the documentation it follows).
 */
import type { PhoneNumber } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { takeDatabaseAway } from './database-away.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { type GraphApi, INTERACTIVE_BODY_LIMIT, nowSeconds, signWhatsapp, startGraphApi, whatsappContacts as contacts, whatsappDelivery, whatsappText as textMessage } from './whatsapp-graph.ts';

const APP_SECRET = 'meta-app-secret-1';
const TOKEN = 'EAAG-whatsapp-access-token-1';
const PHONE_ID = '106540352242922';
const NOTIFY_PHONE_ID = '106540352242923';
const VERIFY_TOKEN = 'verify-me-please';
const NUMBER = '+551140000001';
const NOTIFY_NUMBER = '+551140000002';
const LONG_PHONE_ID = '106540352242924';
const LONG_NUMBER = '+551140000003';

let server: TestServer;
let member: TenantMember;
let graph: GraphApi;
let menuNumber: PhoneNumber;
let notifyNumber: PhoneNumber;
let longMenuNumber: PhoneNumber;

let sent: GraphApi['sent'];
/** The conversations the support desk was handed (the chat destination's URL, on the same local server). */
const handedOff: Array<{ data: { provider: string; caller: string; called: string; transcript: Array<{ from: string; text: string }> } }> = [];

const node = planNode;
const edge = planEdge;
const plan = (name: string, nodes: FixtureDocument['nodes'], edges: ReturnType<typeof edge>[]): FixtureDocument => ({
  name,
  format_version: 1,
  settings: { session_timeout_min: 30, chat_text: 'Closed for inactivity.', sync_with_voice_text: false, webhook: '' },
  nodes,
  edges,
});

/** A menu answered by a button (3 short options), then a list (5 options, one label too long for a row title). */
const menuPlan = plan(
  'WhatsApp menu',
  [
    node('start', 'start', { hangup_chat_message: 'Bye!' }),
    node('welcome', 'play_message', { chat_text: 'Welcome to ACME.' }),
    node('menu', 'voice_menu', {
      chat_text: 'How can we help?',
      options: [
        { digits: '1', label: 'Plans' },
        { digits: '2', label: 'Support' },
        { digits: '3', label: 'Billing' },
      ],
    }),
    node('plans', 'voice_menu', {
      chat_text: 'Which plan?',
      options: [
        { digits: '1', label: 'Basic' },
        { digits: '2', label: 'Plus' },
        { digits: '3', label: 'Pro' },
        { digits: '4', label: 'Enterprise with volume discounts' },
        { digits: '5', label: 'Other' },
      ],
    }),
    node('enterprise', 'play_message', { chat_text: 'Our sales team will write to you.' }),
    node('bye', 'hangup', {}),
    node('desk', 'destination', { destination_id: 1, timeout_s: 10 }),
    node('busy', 'play_message', { chat_text: 'All our agents are busy.' }),
  ],
  [
    edge('start', 'next', 'welcome'),
    edge('welcome', 'next', 'menu'),
    edge('menu', '1', 'plans'),
    edge('plans', '4', 'enterprise'),
    edge('enterprise', 'next', 'bye'),
    edge('menu', '2', 'desk'),
    edge('desk', 'busy', 'busy'),
  ],
);

/** send_message over WhatsApp to the user, then says which exit it took. */
const notifyPlan = plan(
  'WhatsApp notify',
  [
    node('start', 'start', {}),
    node('notify', 'send_message', { channel: 'whatsapp', to: '{{caller}}', text: 'Your ticket is open.' }),
    node('ok', 'play_message', { chat_text: 'Sent.' }),
    node('ko', 'play_message', { chat_text: 'Not sent.' }),
  ],
  [edge('start', 'next', 'notify'), edge('notify', 'sent', 'ok'), edge('notify', 'failed', 'ko')],
);

/** A menu of five options (a list) whose prompt is longer than an interactive body may be. */
const LONG_PROMPT = Array.from({ length: 151 }, (_, index) => `Line${String(index).padStart(4, '0')}.`).join(' ');
const longMenuPlan = plan(
  'WhatsApp long menu',
  [
    node('start', 'start', {}),
    node('menu', 'voice_menu', { chat_text: LONG_PROMPT, options: ['Basic', 'Plus', 'Pro', 'Enterprise', 'Other'].map((label, index) => ({ digits: String(index + 1), label })) }),
  ],
  [edge('start', 'next', 'menu')],
);

type Value = Record<string, unknown>;

const delivery = (value: Value, phoneId = PHONE_ID) => whatsappDelivery(value, phoneId);
const interactiveReply = (user: string, id: string, kind: 'button_reply' | 'list_reply', reply: Value) => ({
  contacts: contacts(user),
  messages: [{ context: { from: '551140000001', id: 'wamid.previous' }, from: user, id, timestamp: nowSeconds(), type: 'interactive', interactive: { type: kind, [kind]: reply } }],
});

const sign = (body: string, secret = APP_SECRET) => signWhatsapp(body, secret);

/** Posts a delivery as Meta does: the JSON text, signed over those very bytes. */
function deliver(numberId: number, payload: unknown, options: { signature?: string | null; body?: string } = {}) {
  const body = options.body ?? JSON.stringify(payload);
  const signature = options.signature === undefined ? sign(body) : options.signature;
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/whatsapp/${numberId}`,
    headers: { 'content-type': 'application/json', ...(signature !== null && { 'x-hub-signature-256': signature }) },
    payload: body,
  });
}

const sessionOf = async (messageId: string) => (await server.ctx.sessions.find(`whatsapp:${messageId}`))!;
const eventsOf = (sessionId: string) => server.ctx.db.selectFrom('session_events').select(['event_id', 'revision']).where('session_id', '=', sessionId).orderBy('revision').execute();
const messagesTable = () => server.ctx.db.selectFrom('whatsapp_messages').selectAll().orderBy('id').execute();

beforeAll(async () => {
  graph = await startGraphApi((url, body) => {
    if (url !== '/handoff') return { status: 404, body: '' };
    handedOff.push(JSON.parse(body) as (typeof handedOff)[number]);
    return { status: 200, body: JSON.stringify({ status: 'busy' }) };
  });
  sent = graph.sent;
  server = await startTestServer({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'whatsapp');
  // The support desk lives on 127.0.0.1 over http, which the API's chat destinations (https) and the outbound policy refuse by default.
  await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
  const now = new Date().toISOString();
  const desk = await server.ctx.db
    .insertInto('destinations')
    .values({ tenant_id: member.tenantId, name: 'Support desk', kind: 'chat', uri: `${graph.origin}/handoff`, description: '', created_time: now, updated_time: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const menu = await storePlan(server.ctx, member.tenantId, menuPlan, { references: { destination: { 1: desk.id } } });
  const notify = await storePlan(server.ctx, member.tenantId, notifyPlan);
  const longMenu = await storePlan(server.ctx, member.tenantId, longMenuPlan);
  const create = async (payload: Value) => {
    const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<PhoneNumber>();
  };
  const whatsapp = { provider: 'whatsapp', whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET };
  menuNumber = await create({ number: NUMBER, chat_plan_id: menu, whatsapp_verify_token: VERIFY_TOKEN, whatsapp_phone_number_id: PHONE_ID, ...whatsapp });
  notifyNumber = await create({ number: NOTIFY_NUMBER, chat_plan_id: notify, whatsapp_phone_number_id: NOTIFY_PHONE_ID, ...whatsapp });
  longMenuNumber = await create({ number: LONG_NUMBER, chat_plan_id: longMenu, whatsapp_phone_number_id: LONG_PHONE_ID, ...whatsapp });
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
});

beforeEach(() => {
  sent.length = 0;
});

describe('the number’s app secret', () => {
  test('is stored encrypted, shown masked, kept when the mask comes back and replaced when a new one does', async () => {
    expect(menuNumber.whatsapp_app_secret).toMatch(/^•+et-1$/);
    expect(menuNumber.whatsapp_webhook_url).toBe(`${server.config.publicUrl}/api/v1/hooks/whatsapp/${menuNumber.id}`);
    const stored = await server.ctx.db.selectFrom('numbers').select('whatsapp_app_secret').where('id', '=', menuNumber.id).executeTakeFirstOrThrow();
    expect(stored.whatsapp_app_secret).not.toContain(APP_SECRET);

    const kept = await server.call({ method: 'PATCH', url: `/numbers/${notifyNumber.id}`, token: member.token, payload: { whatsapp_app_secret: notifyNumber.whatsapp_app_secret } });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json<PhoneNumber>().whatsapp_app_secret).toBe(notifyNumber.whatsapp_app_secret);
    // Still the secret deliveries are signed with.
    expect((await deliver(notifyNumber.id, delivery({ statuses: [] }, NOTIFY_PHONE_ID))).statusCode).toBe(200);

    const changed = await server.call({ method: 'PATCH', url: `/numbers/${notifyNumber.id}`, token: member.token, payload: { whatsapp_app_secret: 'another-secret' } });
    expect(changed.json<PhoneNumber>().whatsapp_app_secret).toMatch(/^•+cret$/);
    const old = await deliver(notifyNumber.id, delivery({ statuses: [] }, NOTIFY_PHONE_ID));
    expect(old.statusCode).toBe(403);
    const restored = await server.call({ method: 'PATCH', url: `/numbers/${notifyNumber.id}`, token: member.token, payload: { whatsapp_app_secret: APP_SECRET } });
    expect(restored.statusCode).toBe(200);
  });
});

describe('who the customer is', () => {
  test('the profile name Meta sends beside the message is kept for agents and the report', async () => {
    // Meta's own example of an incoming text, "messages webhook reference" (Incoming messages):
    // https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages
    // `value.contacts[].profile.name` beside `wa_id`, which is the message's `from`.
    const example = {
      contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
      messages: [{ from: '16505551234', id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=', timestamp: nowSeconds(), type: 'text', text: { body: 'Does it come in another color?' } }],
    };
    expect((await deliver(menuNumber.id, delivery(example))).statusCode).toBe(200);
    const session = await until('the chat', () => server.ctx.db.selectFrom('sessions').select(['caller', 'customer']).where('id', '=', `whatsapp:${example.messages[0]!.id}`).executeTakeFirst());
    expect(session.caller).toBe('+16505551234');
    expect(JSON.parse(session.customer!)).toEqual({ name: 'Sheena Nelson', email: null, page_url: null, external_id: null, verified: false });

    // The user may share no name (Meta then leaves the profile out): the customer stays unknown, the number tells them apart.
    const nameless = { contacts: [{ wa_id: '16505550000' }], messages: [{ from: '16505550000', id: 'wamid.nameless-1', timestamp: nowSeconds(), type: 'text', text: { body: 'Hi' } }] };
    expect((await deliver(menuNumber.id, delivery(nameless))).statusCode).toBe(200);
    const unnamed = await until('the nameless chat', () => server.ctx.db.selectFrom('sessions').select('customer').where('id', '=', 'whatsapp:wamid.nameless-1').executeTakeFirst());
    expect(unnamed.customer).toBeNull();
  });
});

describe('the verification handshake', () => {
  const verify = (numberId: number, query: Record<string, string>) =>
    server.app.inject({ method: 'GET', url: `/api/v1/hooks/whatsapp/${numberId}?${new URLSearchParams(query).toString()}` });

  test('answers the challenge as text when the mode is subscribe and the token is the number’s', async () => {
    const response = await verify(menuNumber.id, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('1158201444');
  });

  test('refuses another token, another mode, another number’s token and an unknown number', async () => {
    const cases = [
      [menuNumber.id, { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' }],
      [menuNumber.id, { 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
      [notifyNumber.id, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
      [999_999, { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
    ] as const;
    for (const [numberId, query] of cases) {
      const response = await verify(numberId, query);
      expect(response.statusCode, JSON.stringify(query)).toBe(403);
      expect(errorOf(response).code).toBe('invalid_whatsapp_verify_token');
      expect(response.body).not.toContain('"1"');
    }
  });
});

describe('a conversation', () => {
  const USER = '5511988887777';

  test('a menu answered by a button, a list answered by a row, a redelivery that runs nothing twice, and the end', async () => {
    const first = await deliver(menuNumber.id, delivery(textMessage(USER, 'wamid.in.1', 'Hi')));
    expect(first.statusCode, first.body).toBe(200);
    expect(sent.map((request) => request.url)).toEqual([`/graph/v23.0/${PHONE_ID}/messages`, `/graph/v23.0/${PHONE_ID}/messages`]);
    expect(sent.every((request) => request.authorization === `Bearer ${TOKEN}` && request.body.to === USER && request.body.messaging_product === 'whatsapp')).toBe(true);
    expect(sent[0]!.body).toMatchObject({ type: 'text', text: { body: 'Welcome to ACME.' } });
    expect(sent[1]!.body).toMatchObject({
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'How can we help?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: '1', title: 'Plans' } },
            { type: 'reply', reply: { id: '2', title: 'Support' } },
            { type: 'reply', reply: { id: '3', title: 'Billing' } },
          ],
        },
      },
    });
    const session = await sessionOf('wamid.in.1');
    expect(session.session).toMatchObject({ channel: 'chat', provider: 'whatsapp', caller: `+${USER}`, called: NUMBER, status: 'waiting' });

    sent.length = 0;
    const button = delivery(interactiveReply(USER, 'wamid.in.2', 'button_reply', { id: '1', title: 'Plans' }));
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'Which plan?' },
        action: {
          sections: [
            {
              rows: [
                { id: '1', title: 'Basic' },
                { id: '2', title: 'Plus' },
                { id: '3', title: 'Pro' },
                // Over 24 characters: shortened in the title, whole in the description.
                { id: '4', title: 'Enterprise with volume …', description: 'Enterprise with volume discounts' },
                { id: '5', title: 'Other' },
              ],
            },
          ],
        },
      },
    });
    const events = await eventsOf('whatsapp:wamid.in.1');
    expect(events.map((event) => event.event_id)).toEqual(['start', 'wamid.in.2']);

    // Meta delivers the same message again: nothing runs, nothing is sent.
    sent.length = 0;
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(sent).toEqual([]);
    expect(await eventsOf('whatsapp:wamid.in.1')).toEqual(events);

    const row = delivery(interactiveReply(USER, 'wamid.in.3', 'list_reply', { id: '4', title: 'Enterprise with volume …', description: 'Enterprise with volume discounts' }));
    expect((await deliver(menuNumber.id, row)).statusCode).toBe(200);
    expect(sent.map((request) => request.body.text?.body)).toEqual(['Our sales team will write to you.', 'Bye!']);
    const ended = await sessionOf('wamid.in.1');
    expect(ended.session.status).toBe('ended');
    expect(ended.session.path.map((entry) => [entry.node_id, entry.exit])).toEqual([
      ['start', 'next'],
      ['welcome', 'next'],
      ['menu', '1'],
      ['plans', '4'],
      ['enterprise', 'next'],
      ['bye', null],
    ]);

    // The next message after the end starts a new conversation.
    sent.length = 0;
    expect((await deliver(menuNumber.id, delivery(textMessage(USER, 'wamid.in.4', 'Hello again')))).statusCode).toBe(200);
    expect(sent.map((request) => request.body.type)).toEqual(['text', 'interactive']);
    expect((await sessionOf('wamid.in.4')).session.status).toBe('waiting');
  });

  test('a chat left idle past the plan’s timeout ends with its chat_text, sent to the user over WhatsApp', async () => {
    await deliver(menuNumber.id, delivery(textMessage('5511933332222', 'wamid.in.idle', 'Hi')));
    sent.length = 0;
    // As if the plan's 30 minutes had gone by.
    await server.ctx.db.updateTable('sessions').set({ timeout_time: new Date(Date.now() - 1000).toISOString() }).where('id', '=', 'whatsapp:wamid.in.idle').execute();
    expect(await server.ctx.sessions.sweepTimeouts()).toContain('whatsapp:wamid.in.idle');
    expect(sent.map((request) => [request.url, request.body.to, request.body.text?.body])).toEqual([
      [`/graph/v23.0/${PHONE_ID}/messages`, '5511933332222', 'Closed for inactivity.'],
    ]);
    expect((await sessionOf('wamid.in.idle')).session.status).toBe('ended');
  });

  test('a hand-off: the conversation goes to the chat destination, whose answer (busy) reaches the user over WhatsApp', async () => {
    const USER_HANDOFF = '5511922221111';
    await deliver(menuNumber.id, delivery(textMessage(USER_HANDOFF, 'wamid.in.desk.1', 'Hi')));
    sent.length = 0;
    await deliver(menuNumber.id, delivery(interactiveReply(USER_HANDOFF, 'wamid.in.desk.2', 'button_reply', { id: '2', title: 'Support' })));
    await expect.poll(() => sent.length, { timeout: 10_000 }).toBe(2);
    expect(handedOff).toHaveLength(1);
    expect(handedOff[0]!.data).toMatchObject({ provider: 'whatsapp', caller: `+${USER_HANDOFF}`, called: NUMBER });
    expect(handedOff[0]!.data.transcript.map((entry) => [entry.from, entry.text])).toEqual([
      ['plan', 'Welcome to ACME.'],
      ['plan', 'How can we help?'],
      ['caller', '2'],
    ]);
    expect(sent.map((request) => [request.body.to, request.body.text?.body])).toEqual([
      [USER_HANDOFF, 'All our agents are busy.'],
      [USER_HANDOFF, 'Bye!'],
    ]);
    await expect.poll(async () => (await sessionOf('wamid.in.desk.1')).session.status).toBe('ended');
  });

  test('delivery statuses of the messages sent are recorded, never going back', async () => {
    await deliver(menuNumber.id, delivery(textMessage('5511977776666', 'wamid.in.status', 'Hi')));
    const [welcome, menu] = sent.map((request) => request.id);
    const statuses = (list: Value[]) => delivery({ statuses: list });
    const at = nowSeconds();
    expect((await deliver(menuNumber.id, statuses([{ id: welcome, status: 'delivered', timestamp: at, recipient_id: '5511977776666' }]))).statusCode).toBe(200);
    await deliver(menuNumber.id, statuses([{ id: welcome, status: 'read', timestamp: at, recipient_id: '5511977776666' }]));
    // Out of order: a late "sent" leaves it read.
    await deliver(menuNumber.id, statuses([{ id: welcome, status: 'sent', timestamp: at, recipient_id: '5511977776666' }]));
    await deliver(
      menuNumber.id,
      statuses([{ id: menu, status: 'failed', timestamp: at, recipient_id: '5511977776666', errors: [{ code: 131026, title: 'Message undeliverable' }] }]),
    );
    const rows = (await messagesTable()).filter((message) => message.id === welcome || message.id === menu);
    expect(rows.map((message) => [message.id, message.direction, message.status, message.error, message.session_id])).toEqual([
      [welcome, 'outbound', 'read', '', 'whatsapp:wamid.in.status'],
      [menu, 'outbound', 'failed', '131026 Message undeliverable', 'whatsapp:wamid.in.status'],
    ]);
  });
});

describe('while the database is away (docs/channels-whatsapp.md)', () => {
  const USER = '5511940403737';
  /** What the user was sent: a text's body, an interactive message's prompt. */
  const shown = () => sent.map((request) => request.body.text?.body ?? (request.body.interactive as { body?: { text?: string } } | undefined)?.body?.text);
  const messageRows = (id: string) => server.ctx.db.selectFrom('whatsapp_messages').select('id').where('id', '=', id).execute();

  /** Delivers `payload` while the database is away: 503 with Retry-After, so that Meta delivers it again, and nothing sent. */
  async function deliverWhileAway(payload: unknown): Promise<void> {
    const bringBack = takeDatabaseAway(server.ctx.dialect);
    let refused;
    try {
      refused = await deliver(menuNumber.id, payload);
    } finally {
      bringBack();
    }
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(errorOf(refused).code).toBe('database_unavailable');
    expect(sent).toEqual([]);
  }

  test('a delivery answered 503 runs when Meta delivers it again, once however often it comes', async () => {
    const first = delivery(textMessage(USER, 'wamid.away.1', 'Hi'));
    await deliverWhileAway(first);
    expect(await server.ctx.sessions.find('whatsapp:wamid.away.1')).toBeUndefined();

    // Meta's redelivery once the database is back starts the conversation; a second one runs nothing.
    expect((await deliver(menuNumber.id, first)).statusCode).toBe(200);
    expect(shown()).toEqual(['Welcome to ACME.', 'How can we help?']);
    sent.length = 0;
    expect((await deliver(menuNumber.id, first)).statusCode).toBe(200);
    expect(sent).toEqual([]);
    expect(await messageRows('wamid.away.1')).toHaveLength(1);

    // Mid-conversation: the button reply answered 503 is taken on its redelivery, once.
    const button = delivery(interactiveReply(USER, 'wamid.away.2', 'button_reply', { id: '1', title: 'Plans' }));
    await deliverWhileAway(button);
    expect((await eventsOf('whatsapp:wamid.away.1')).map((event) => event.event_id)).toEqual(['start']);
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(shown()).toEqual(['Which plan?']);
    sent.length = 0;
    expect((await deliver(menuNumber.id, button)).statusCode).toBe(200);
    expect(sent).toEqual([]);
    expect((await eventsOf('whatsapp:wamid.away.1')).map((event) => event.event_id)).toEqual(['start', 'wamid.away.2']);
    expect(await messageRows('wamid.away.2')).toHaveLength(1);
  });
});

describe('deliveries refused', () => {
  test('a missing signature, another secret’s, or a body changed after signing: 403, nothing runs', async () => {
    const payload = delivery(textMessage('5511966665555', 'wamid.in.forged', 'Hi'));
    const body = JSON.stringify(payload);
    const before = await messagesTable();
    const attempts = [
      deliver(menuNumber.id, payload, { signature: null }),
      deliver(menuNumber.id, payload, { signature: sign(body, 'not-the-secret') }),
      deliver(menuNumber.id, payload, { signature: 'sha256=zz' }),
      // Signed, then changed: the same JSON with other spacing is other bytes.
      deliver(menuNumber.id, payload, { signature: sign(body), body: JSON.stringify(payload, null, 1) }),
      // Signed with this number's secret, posted to a number that has none.
      deliver(999_999, payload),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode, response.body).toBe(403);
      expect(errorOf(response).code).toBe('invalid_whatsapp_signature');
    }
    expect(sent).toEqual([]);
    expect(await server.ctx.sessions.find('whatsapp:wamid.in.forged')).toBeUndefined();
    expect(await messagesTable()).toEqual(before);
  });
});

describe('send_message over WhatsApp and the 24-hour window', () => {
  test('inside the window the block sends the text and takes sent', async () => {
    expect((await deliver(notifyNumber.id, delivery(textMessage('5511955554444', 'wamid.in.fresh', 'Hi'), NOTIFY_PHONE_ID))).statusCode).toBe(200);
    expect(sent.map((request) => [request.url, request.body.to, request.body.text?.body])).toEqual([
      [`/graph/v23.0/${NOTIFY_PHONE_ID}/messages`, '5511955554444', 'Your ticket is open.'],
      [`/graph/v23.0/${NOTIFY_PHONE_ID}/messages`, '5511955554444', 'Sent.'],
    ]);
    const { session } = await sessionOf('wamid.in.fresh');
    expect(session.path.find((entry) => entry.node_id === 'notify')?.exit).toBe('sent');
  });

  test('a user whose last message is over 24 hours old gets nothing free-form: the block takes failed', async () => {
    // Meta redelivers for days after an outage: this message was written 25 hours ago.
    const old = String(Math.floor(Date.now() / 1000) - 25 * 3600);
    const response = await deliver(notifyNumber.id, delivery(textMessage('5511944443333', 'wamid.in.old', 'Hi', old), NOTIFY_PHONE_ID));
    expect(response.statusCode).toBe(200);
    expect(sent).toEqual([]);
    const { session } = await sessionOf('wamid.in.old');
    expect(session.path.find((entry) => entry.node_id === 'notify')?.exit).toBe('failed');
    expect(session.path.some((entry) => entry.node_id === 'ko')).toBe(true);
  });
});

describe('Meta’s limits', () => {
  test('a list whose prompt is longer than an interactive body: the prompt first as text, then the list, all accepted', async () => {
    expect(LONG_PROMPT.length).toBeGreaterThanOrEqual(1500);
    const response = await deliver(longMenuNumber.id, delivery(textMessage('5511977776666', 'wamid.in.long', 'Hi'), LONG_PHONE_ID));
    expect(response.statusCode, response.body).toBe(200);
    expect(sent.map((request) => request.body.type)).toEqual(['text', 'interactive']);
    const [text, list] = sent.map((request) => request.body);
    const body = (list!.interactive as { type: string; body: { text: string }; action: { sections: Array<{ rows: unknown[] }> } });
    expect(body.type).toBe('list');
    expect(Array.from(body.body.text).length).toBeLessThanOrEqual(INTERACTIVE_BODY_LIMIT);
    expect(body.action.sections[0]!.rows).toHaveLength(5);
    // Nothing of the prompt is lost, and it reads in order.
    expect(`${text!.text!.body} ${body.body.text}`).toBe(LONG_PROMPT);
    // Meta accepted both: each is recorded with the id it answered.
    const rows = (await messagesTable()).filter((row) => row.direction === 'outbound' && row.number_id === longMenuNumber.id);
    expect(rows.map((row) => row.status)).toEqual(['accepted', 'accepted']);
  });
});

describe('a person holds the chat (issue 30, docs/conversations.md)', () => {
  const USER = '5511988887777';
  const QUEUE_PHONE_ID = '106540352242925';
  let queueNumber: PhoneNumber;

  beforeAll(async () => {
    const queue = await server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'People', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] } });
    expect(queue.statusCode, queue.body).toBe(201);
    const people = await storePlan(
      server.ctx,
      member.tenantId,
      plan(
        'WhatsApp people',
        [
          node('start', 'start', {}),
          node('hello', 'play_message', { chat_text: 'Passing you to a person.' }),
          node('agent', 'destination', { destination_id: queue.json<{ id: number }>().id, timeout_s: 120 }),
          node('back', 'play_message', { chat_text: 'Welcome back to the bot.' }),
        ],
        [edge('start', 'next', 'hello'), edge('hello', 'next', 'agent'), edge('agent', 'answer', 'back')],
      ),
    );
    const created = await server.call({
      method: 'POST',
      url: '/numbers',
      token: member.token,
      payload: { number: '+551140000005', chat_plan_id: people, whatsapp_phone_number_id: QUEUE_PHONE_ID, provider: 'whatsapp', whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET },
    });
    expect(created.statusCode, created.body).toBe(201);
    queueNumber = created.json<PhoneNumber>();
    expect((await server.call({ method: 'PUT', url: '/agents/me', token: member.token, payload: { status: 'online' } })).statusCode).toBe(200);
  });

  const sentTexts = () => sent.filter((request) => request.body.to === USER).map((request) => request.body.text?.body);

  test('the customer’s messages go to the agent, the agent’s go out through the Graph API, and closing gives the chat back to the plan', async () => {
    expect((await deliver(queueNumber.id, delivery(textMessage(USER, 'wamid.people.1', 'Hi'), QUEUE_PHONE_ID))).statusCode).toBe(200);
    const sessionId = 'whatsapp:wamid.people.1';
    const conversation = await until('the conversation', () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());
    expect(conversation).toMatchObject({ status: 'waiting', provider: 'whatsapp', caller: `+${USER}` });
    expect((await server.call({ method: 'POST', url: `/conversations/${conversation.id}/take`, token: member.token })).statusCode).toBe(200);

    const reply = await server.call({ method: 'POST', url: `/conversations/${conversation.id}/messages`, token: member.token, payload: { text: 'Hello, this is Ana from support.' } });
    expect(reply.statusCode, reply.body).toBe(201);
    expect(sentTexts()).toContain('Hello, this is Ana from support.');

    const revision = (await server.ctx.sessions.find(sessionId))!.revision;
    expect((await deliver(queueNumber.id, delivery(textMessage(USER, 'wamid.people.2', 'My order is late'), QUEUE_PHONE_ID))).statusCode).toBe(200);
    // Meta delivers it again: stored once.
    expect((await deliver(queueNumber.id, delivery(textMessage(USER, 'wamid.people.2', 'My order is late'), QUEUE_PHONE_ID))).statusCode).toBe(200);
    const detail = (await server.call({ method: 'GET', url: `/conversations/${conversation.id}`, token: member.token })).json<{ messages: Array<{ author: string; text: string }> }>();
    // (The queue's place line, the bot's, came first.)
    expect(detail.messages.filter((message) => message.author !== 'bot').map((message) => `${message.author}: ${message.text}`)).toEqual(['agent: Hello, this is Ana from support.', 'customer: My order is late']);
    // Not a turn of the plan: the session did not move, and the plan said nothing.
    expect((await server.ctx.sessions.find(sessionId))!.revision).toBe(revision);

    const closed = await server.call({ method: 'POST', url: `/conversations/${conversation.id}/close`, token: member.token, payload: { outcome: 'back_to_plan' } });
    expect(closed.statusCode, closed.body).toBe(200);
    await until('the plan’s reply', () => (sentTexts().includes('Welcome back to the bot.') ? true : undefined));
  });
});
