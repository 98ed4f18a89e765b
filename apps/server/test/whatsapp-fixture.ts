/**
 * What the WhatsApp channel's tests share (whatsapp*.test.ts): a local Graph API (whatsapp-graph.ts)
 * that also plays the support desk, a server whose tenant has three WhatsApp numbers on the menu,
 * notify and long-menu plans, and deliveries signed as Meta signs them. The bindings are set by
 * useWhatsappServer's hooks.
 */
import type { PhoneNumber } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createTenantMember, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, storePlan } from './sessions-helpers.ts';
import { type GraphApi, nowSeconds, signWhatsapp, startGraphApi, whatsappContacts as contacts, whatsappDelivery } from './whatsapp-graph.ts';

export const APP_SECRET = 'meta-app-secret-1';
export const TOKEN = 'EAAG-whatsapp-access-token-1';
export const PHONE_ID = '106540352242922';
export const NOTIFY_PHONE_ID = '106540352242923';
export const VERIFY_TOKEN = 'verify-me-please';
export const NUMBER = '+551140000001';
export const NOTIFY_NUMBER = '+551140000002';
export const LONG_PHONE_ID = '106540352242924';
export const LONG_NUMBER = '+551140000003';

export let server: TestServer;
export let member: TenantMember;
export let graph: GraphApi;
export let menuNumber: PhoneNumber;
export let notifyNumber: PhoneNumber;
export let longMenuNumber: PhoneNumber;

export let sent: GraphApi['sent'];
/** The conversations the support desk was handed (the chat destination's URL, on the same local server). */
export const handedOff: Array<{ data: { provider: string; caller: string; called: string; transcript: Array<{ from: string; text: string }> } }> = [];

export const node = planNode;
export const edge = planEdge;
export const plan = (name: string, nodes: FixtureDocument['nodes'], edges: ReturnType<typeof edge>[]): FixtureDocument => ({
  name,
  format_version: 1,
  settings: { session_timeout_min: 30, chat_text: 'Closed for inactivity.', sync_with_voice_text: false, webhook: '' },
  nodes,
  edges,
});

/** A menu answered by a button (3 short options), then a list (5 options, one label too long for a row title). */
export const menuPlan = plan(
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
export const notifyPlan = plan(
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
export const LONG_PROMPT = Array.from({ length: 151 }, (_, index) => `Line${String(index).padStart(4, '0')}.`).join(' ');
export const longMenuPlan = plan(
  'WhatsApp long menu',
  [
    node('start', 'start', {}),
    node('menu', 'voice_menu', { chat_text: LONG_PROMPT, options: ['Basic', 'Plus', 'Pro', 'Enterprise', 'Other'].map((label, index) => ({ digits: String(index + 1), label })) }),
  ],
  [edge('start', 'next', 'menu')],
);

export type Value = Record<string, unknown>;

export const delivery = (value: Value, phoneId = PHONE_ID) => whatsappDelivery(value, phoneId);
export const interactiveReply = (user: string, id: string, kind: 'button_reply' | 'list_reply', reply: Value) => ({
  contacts: contacts(user),
  messages: [{ context: { from: '551140000001', id: 'wamid.previous' }, from: user, id, timestamp: nowSeconds(), type: 'interactive', interactive: { type: kind, [kind]: reply } }],
});

export const sign = (body: string, secret = APP_SECRET) => signWhatsapp(body, secret);

/** Posts a delivery as Meta does: the JSON text, signed over those very bytes. */
export function deliver(numberId: number, payload: unknown, options: { signature?: string | null; body?: string } = {}) {
  const body = options.body ?? JSON.stringify(payload);
  const signature = options.signature === undefined ? sign(body) : options.signature;
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/whatsapp/${numberId}`,
    headers: { 'content-type': 'application/json', ...(signature !== null && { 'x-hub-signature-256': signature }) },
    payload: body,
  });
}

export const sessionOf = async (messageId: string) => (await server.ctx.sessions.find(`whatsapp:${messageId}`))!;
export const eventsOf = (sessionId: string) => server.ctx.db.selectFrom('session_events').select(['event_id', 'revision']).where('session_id', '=', sessionId).orderBy('revision').execute();
export const messagesTable = () => server.ctx.db.selectFrom('whatsapp_messages').selectAll().orderBy('id').execute();

/** Starts the Graph API stand-in, the server and the tenant's three WhatsApp numbers; clears what was sent before each test. */
export function useWhatsappServer(): void {
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
}
