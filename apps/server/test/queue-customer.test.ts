/**
 * What the customer of a chat waiting in a queue hears (issue 36, 2 and 10; docs/conversations.md):
 * their place when the wait starts and each time it changes, nothing once taken, in the chat's
 * language, on the web chat and on WhatsApp; a waiting chat whose customer left ends abandoned
 * (an open one only tells the agent); a resolve says goodbye once.
 */
import type { ConversationDetail, Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';
import { type GraphApi, nowSeconds, signWhatsapp, startGraphApi, whatsappContacts, whatsappDelivery } from './whatsapp-graph.ts';
import { sweepCustomersGone, WIDGET_GONE_MS } from '../src/modules/conversations/customer-left.ts';

const SITE = 'https://shop.example.com';
const APP_SECRET = 'meta-app-secret-36q';
const TOKEN = 'EAAG-whatsapp-access-token-36q';
const PHONE_ID = '106540352243036';
const PLAN_GOODBYE = 'Goodbye from the plan.';

let server: TestServer;
let graph: GraphApi;
let member: TenantMember;
let portuguese: TenantMember;
let number: PhoneNumber;
let ptNumber: PhoneNumber;
let whatsappNumber: PhoneNumber;
let nextAddress = 0;

const api = (token: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

function widget(key: string, method: 'GET' | 'POST', url: string) {
  return server.app.inject({ method, url: `/api/v1/webchat/${key}${url}`, remoteAddress: `198.51.100.${(nextAddress++ % 250) + 1}`, headers: { origin: SITE } });
}
const view = async (id: string, key = number.webchat_key!) => (await widget(key, 'GET', `/conversations/${id}`)).json<WebchatConversation>();
/** What the widget shows of the plan's side after the hand-off's greeting: the queue's lines among them. */
const planLines = async (id: string, key?: string) => (await view(id, key)).messages.filter((message) => message.from === 'plan').map((message) => message.text);
const queueLines = async (id: string, key?: string) => (await planLines(id, key)).filter((text) => /queue|fila/.test(text));

async function startChat(key = number.webchat_key!): Promise<{ sessionId: string; id: number }> {
  const started = await widget(key, 'POST', '/conversations');
  expect(started.statusCode, started.body).toBe(200);
  const sessionId = started.json<WebchatConversation>().conversation_id;
  const record = await until(`the conversation of ${sessionId}`, () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());
  return { sessionId, id: record.id };
}

/** The plan of the tests: the hand-off plan, its start saying goodbye when the chat ends. */
async function planFor(tenantId: number, queueId: number, name: string): Promise<number> {
  const document = handOffPlan(queueId, { timeoutS: 600, onAnswer: 'Welcome back.' });
  document.nodes[0] = { ...document.nodes[0]!, data: { hangup_chat_message: PLAN_GOODBYE } };
  return storePlan(server.ctx, tenantId, { name, ...document });
}

async function queueOf(who: TenantMember): Promise<Destination> {
  const created = await api(who.token, 'POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [who.userId] });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<Destination>();
}

beforeAll(async () => {
  graph = await startGraphApi();
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000', WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'queue-place');
  portuguese = await createTenantMember(server, admin, 'queue-place-pt');
  // Its chats speak Portuguese: the tenant's language, read when a chat starts.
  await server.ctx.db.updateTable('tenants').set({ language: 'pt-BR' }).where('id', '=', portuguese.tenantId).execute();
  const queue = await queueOf(member);
  const plan = await planFor(member.tenantId, queue.id, 'Queue chat');
  const created = await api(member.token, 'POST', '/numbers', { number: '+551140003661', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(created.statusCode, created.body).toBe(201);
  number = created.json<PhoneNumber>();
  const whatsapp = await api(member.token, 'POST', '/numbers', { number: '+551140003662', provider: 'whatsapp', chat_plan_id: plan, whatsapp_phone_number_id: PHONE_ID, whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET });
  expect(whatsapp.statusCode, whatsapp.body).toBe(201);
  whatsappNumber = whatsapp.json<PhoneNumber>();
  const ptQueue = await queueOf(portuguese);
  const ptPlan = await planFor(portuguese.tenantId, ptQueue.id, 'Fila');
  const pt = await api(portuguese.token, 'POST', '/numbers', { number: '+551140003663', provider: 'webchat', chat_plan_id: ptPlan, webchat_origins: [SITE] });
  expect(pt.statusCode, pt.body).toBe(201);
  ptNumber = pt.json<PhoneNumber>();
  for (const who of [member, portuguese]) expect((await api(who.token, 'PUT', '/agents/me', { status: 'online' })).statusCode).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
});

/** Takes every chat still waiting for `who`, so that each test starts with an empty queue. */
async function takeAll(who: TenantMember): Promise<void> {
  const waiting = await server.ctx.db.selectFrom('conversations').select('id').where('tenant_id', '=', who.tenantId).where('status', '=', 'waiting').execute();
  for (const { id } of waiting) await api(who.token, 'POST', `/conversations/${id}/take`);
}

describe('the place in the queue', () => {
  test('two chats wait: the second hears it is number 2, then next once the first is taken; nothing once taken', async () => {
    await takeAll(member);
    const first = await startChat();
    await expect.poll(() => queueLines(first.sessionId)).toEqual(['A person will be with you shortly: you are next in the queue.']);
    const second = await startChat();
    await expect.poll(() => queueLines(second.sessionId)).toEqual(['A person will be with you shortly: you are number 2 in the queue.']);
    // The line reads as the plan's, after its greeting.
    expect((await planLines(second.sessionId)).slice(-2)).toEqual(['Hello! Passing you to a person.', 'A person will be with you shortly: you are number 2 in the queue.']);

    expect((await api(member.token, 'POST', `/conversations/${first.id}/take`)).statusCode).toBe(200);
    await expect.poll(() => queueLines(second.sessionId)).toEqual([
      'A person will be with you shortly: you are number 2 in the queue.',
      'A person will be with you shortly: you are next in the queue.',
    ]);
    expect(await queueLines(first.sessionId)).toHaveLength(1);

    // A third arrives behind: the second's place does not change, so it hears nothing more.
    const third = await startChat();
    await expect.poll(() => queueLines(third.sessionId)).toEqual(['A person will be with you shortly: you are number 2 in the queue.']);
    expect((await api(member.token, 'POST', `/conversations/${second.id}/take`)).statusCode).toBe(200);
    expect(await queueLines(second.sessionId)).toHaveLength(2);
    expect(await queueLines(third.sessionId)).toHaveLength(2);
    // The agent sees the lines as the bot's; the list still shows what the customer said last.
    const detail = (await api(member.token, 'GET', `/conversations/${second.id}`)).json<ConversationDetail>();
    expect(detail.messages.filter((message) => message.author === 'bot')).toHaveLength(2);
    await takeAll(member);
  });

  test('with recent waits, the first line tells the expected wait', async () => {
    await takeAll(member);
    // Three chats taken in the last hour after 4 minutes' wait each.
    const since = new Date(Date.now() - 30 * 60_000);
    const recent = await server.ctx.db.selectFrom('conversations').select('id').where('tenant_id', '=', member.tenantId).where('taken_at', 'is not', null).execute();
    expect(recent.length).toBeGreaterThanOrEqual(3);
    for (const { id } of recent) {
      await server.ctx.db.updateTable('conversations').set({ created_at: since.toISOString(), taken_at: new Date(since.getTime() + 4 * 60_000).toISOString() }).where('id', '=', id).execute();
    }
    const chat = await startChat();
    await expect.poll(() => queueLines(chat.sessionId)).toEqual(['A person will be with you shortly: you are next in the queue. Expected wait: about 4 min.']);
    await takeAll(member);
  });

  test('a Portuguese chat hears it in Portuguese', async () => {
    const first = await startChat(ptNumber.webchat_key!);
    const second = await startChat(ptNumber.webchat_key!);
    await expect.poll(() => queueLines(first.sessionId, ptNumber.webchat_key!)).toEqual(['Uma pessoa vai atender você em breve: você é o próximo da fila.']);
    await expect.poll(() => queueLines(second.sessionId, ptNumber.webchat_key!)).toEqual(['Uma pessoa vai atender você em breve: você é o número 2 da fila.']);
    await takeAll(portuguese);
  });

  test('a WhatsApp customer gets the lines through the Graph API', async () => {
    await takeAll(member);
    graph.sent.length = 0;
    const deliver = (id: string, from: string) => {
      const body = JSON.stringify(whatsappDelivery({ contacts: whatsappContacts(from), messages: [{ from, id, timestamp: nowSeconds(), type: 'text', text: { body: 'Hi' } }] }, PHONE_ID));
      return server.app.inject({ method: 'POST', url: `/api/v1/hooks/whatsapp/${whatsappNumber.id}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) }, payload: body });
    };
    expect((await deliver('wamid.q.1', '5511977770001')).statusCode).toBe(200);
    expect((await deliver('wamid.q.2', '5511977770002')).statusCode).toBe(200);
    // Recent takes (the tests above) add the expected wait to a first line.
    const textsTo = (to: string) => graph.sent.filter((seen) => seen.body.to === to).map((seen) => (seen.body.text?.body ?? '').replace(/ Expected wait: about \d+ min\.$/, ''));
    await until('the second customer’s place', () => (textsTo('5511977770002').some((text) => text.includes('number 2')) ? true : undefined));
    const first = await until('the first chat', () => server.ctx.db.selectFrom('conversations').select('id').where('caller', 'like', '%5511977770001').where('status', '=', 'waiting').executeTakeFirst());
    expect((await api(member.token, 'POST', `/conversations/${first.id}/take`)).statusCode).toBe(200);
    await until('the second customer’s new place', () => (textsTo('5511977770002').some((text) => text.includes('next in the queue')) ? true : undefined));
    expect(textsTo('5511977770002').filter((text) => text.includes('queue'))).toEqual([
      'A person will be with you shortly: you are number 2 in the queue.',
      'A person will be with you shortly: you are next in the queue.',
    ]);
    expect(textsTo('5511977770001').filter((text) => text.includes('queue'))).toEqual(['A person will be with you shortly: you are next in the queue.']);
    await takeAll(member);
  });
});

describe('the customer left while waiting', () => {
  test('a waiting web chat whose widget went quiet ends abandoned; an open one only tells its agent', async () => {
    await takeAll(member);
    const open = await startChat();
    expect((await api(member.token, 'POST', `/conversations/${open.id}/take`)).statusCode).toBe(200);
    const waiting = await startChat();
    const seen = new Date();
    await server.ctx.db.updateTable('conversations').set({ customer_seen_at: seen.toISOString() }).where('id', 'in', [open.id, waiting.id]).execute();
    // Within the 90 s nothing happens; past them, the sweep.
    // (Chats of the tests above, held and quiet, are told too.)
    expect(await sweepCustomersGone({ ...server.ctx }, new Date(seen.getTime() + WIDGET_GONE_MS - 1000))).not.toEqual(expect.arrayContaining([open.id]));
    expect(await server.ctx.db.selectFrom('conversations').select('status').where('id', '=', waiting.id).executeTakeFirstOrThrow()).toEqual({ status: 'waiting' });
    expect(await sweepCustomersGone({ ...server.ctx }, new Date(seen.getTime() + WIDGET_GONE_MS + 1000))).toEqual(expect.arrayContaining([open.id, waiting.id]));

    const report = await until('the waiting chat’s report', () => server.ctx.db.selectFrom('call_reports').selectAll().where('session_id', '=', waiting.sessionId).executeTakeFirst());
    expect(report).toMatchObject({ disposition: 'abandoned', dial_status: 'cancel', hangup_cause: 'caller_hangup' });
    const closed = await until('the waiting conversation to close', async () => {
      const row = await server.ctx.db.selectFrom('conversations').selectAll().where('id', '=', waiting.id).executeTakeFirstOrThrow();
      return row.status === 'closed' ? row : undefined;
    });
    expect(closed.outcome).toBe('abandoned');
    expect(errorOf(await api(member.token, 'POST', `/conversations/${waiting.id}/take`))).toMatchObject({ statusCode: 409, code: 'conversation_closed' });
    // The taken chat stays with its agent, told.
    const detail = (await api(member.token, 'GET', `/conversations/${open.id}`)).json<ConversationDetail>();
    expect(detail.status).toBe('open');
    expect(detail.messages.filter((message) => message.author === 'system').map((message) => message.text)).toEqual(['customer_left:widget_closed']);
    expect(await server.ctx.db.selectFrom('call_reports').select('id').where('session_id', '=', open.sessionId).executeTakeFirst()).toBeUndefined();
    await api(member.token, 'POST', `/conversations/${open.id}/close`, { outcome: 'resolved' });
  });
});

describe('resolved: one goodbye', () => {
  test('the web chat customer gets the queue’s closing message, not the plan’s end message too', async () => {
    await takeAll(member);
    const chat = await startChat();
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/take`)).statusCode).toBe(200);
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    const shown = await view(chat.sessionId);
    expect(shown.status).toBe('ended');
    expect(shown.messages.filter((message) => message.text === PLAN_GOODBYE)).toEqual([]);
    expect(shown.messages.filter((message) => /closed|Thank you/.test(message.text))).toHaveLength(1);
    const report = await server.ctx.db.selectFrom('call_reports').selectAll().where('session_id', '=', chat.sessionId).executeTakeFirstOrThrow();
    expect(report).toMatchObject({ disposition: 'routed', hangup_cause: 'resolved' });
  });

  test('the WhatsApp customer gets exactly one closing line', async () => {
    await takeAll(member);
    const from = '5511977770009';
    const body = JSON.stringify(whatsappDelivery({ contacts: whatsappContacts(from), messages: [{ from, id: 'wamid.q.9', timestamp: nowSeconds(), type: 'text', text: { body: 'Hi' } }] }, PHONE_ID));
    expect((await server.app.inject({ method: 'POST', url: `/api/v1/hooks/whatsapp/${whatsappNumber.id}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) }, payload: body })).statusCode).toBe(200);
    const chat = await until('the WhatsApp chat', () => server.ctx.db.selectFrom('conversations').select(['id', 'session_id']).where('caller', 'like', `%${from}`).where('status', '=', 'waiting').executeTakeFirst());
    // Told their place first (sent once the start has answered), so that no line of the wait is still on its way below.
    await until('the queue place line', () => (graph.sent.some((seen) => seen.body.to === from && String(seen.body.text?.body ?? '').includes('queue')) ? true : undefined));
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/take`)).statusCode).toBe(200);
    graph.sent.length = 0;
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    await until('the chat to end', () => server.ctx.db.selectFrom('call_reports').select('id').where('session_id', '=', chat.session_id).executeTakeFirst());
    await until('the closing line', () => (graph.sent.some((seen) => seen.body.to === from) ? true : undefined));
    // Anything the plan would send is sent by now (the end's turn is delivered before the close answers).
    expect(graph.sent.filter((seen) => seen.body.to === from).map((seen) => seen.body.text?.body)).toEqual(['Thank you for contacting us. This conversation is now closed; write again whenever you need us.']);
  });
});
