/**
 * The agent's work (issue 36, docs/conversations.md): a queue's closing message reaches the
 * customer on resolve (its own text, by the chat's language, else the default; none back to the
 * plan); private notes stay with the agents (never in the widget, shown in the report); the
 * tenant's saved replies (users keep them, guests read them, refused before their body is read).
 */
import type { CallReportRecord, ConversationDetail, Destination, PhoneNumber, SavedReply, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, createTenantUser, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { webchatVisitor } from './webchat-visitor.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';
import { defaultClosingMessages } from '../src/modules/conversations/closing-message.ts';
import { sweepCustomersGone } from '../src/modules/conversations/customer-left.ts';

const SITE = 'https://shop.example.com';

let server: TestServer;
let admin: string;
let member: TenantMember;
let guest: TenantMember;
let stranger: TenantMember;
let queue: Destination;
let number: PhoneNumber;

const { widget, view } = webchatVisitor(() => server, () => number.webchat_key!, SITE);
const api = (token: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

/** A chat that reached the queue and that the member took: its session and conversation ids. */
async function takenChat(): Promise<{ sessionId: string; id: number }> {
  const started = await widget('POST', '/conversations');
  expect(started.statusCode, started.body).toBe(200);
  const sessionId = started.json<WebchatConversation>().conversation_id;
  const record = await until('the conversation', () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).executeTakeFirst());
  expect((await api(member.token, 'POST', `/conversations/${record.id}/take`)).statusCode).toBe(200);
  return { sessionId, id: record.id };
}

beforeAll(async () => {
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000' });
  admin = await server.login();
  member = await createTenantMember(server, admin, 'work');
  guest = await createTenantUser(server, admin, member.tenantId, 'work-guest', 'guest');
  stranger = await createTenantMember(server, admin, 'work-other');
  const created = await api(member.token, 'POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] });
  expect(created.statusCode, created.body).toBe(201);
  queue = created.json<Destination>();
  expect(queue).toMatchObject({ closing_message_en: '', closing_message_pt: '' });
  const plan = await storePlan(server.ctx, member.tenantId, { name: 'Front desk', ...handOffPlan(queue.id, { timeoutS: 120, onAnswer: 'Welcome back to the bot.' }) });
  const response = await api(member.token, 'POST', '/numbers', { number: '+551140003601', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(response.statusCode, response.body).toBe(201);
  number = response.json<PhoneNumber>();
  expect((await api(member.token, 'PUT', '/agents/me', { status: 'online' })).statusCode).toBe(200);
});

afterAll(() => server?.close());

describe('the closing message', () => {
  test('resolved: the customer gets the queue’s own text in the chat’s language; back to the plan: none', async () => {
    const patched = await api(member.token, 'PATCH', `/destinations/${queue.id}`, { closing_message_en: 'Thanks for writing to Support!', closing_message_pt: 'Obrigado por escrever ao Suporte!' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json<Destination>()).toMatchObject({ closing_message_en: 'Thanks for writing to Support!', closing_message_pt: 'Obrigado por escrever ao Suporte!' });
    const tooLong = await api(member.token, 'PATCH', `/destinations/${queue.id}`, { closing_message_en: 'x'.repeat(1001) });
    expect(errorOf(tooLong)).toMatchObject({ statusCode: 400, code: 'invalid_input' });

    const chat = await takenChat();
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    const shown = await view(chat.sessionId);
    expect(shown.messages.at(-1)).toMatchObject({ from: 'agent', text: 'Thanks for writing to Support!', agent_name: member.username });

    // A Portuguese chat reads the Portuguese text.
    const ptChat = await takenChat();
    const state = await server.ctx.db.selectFrom('sessions').select('state').where('id', '=', ptChat.sessionId).executeTakeFirstOrThrow();
    await server.ctx.db.updateTable('sessions').set({ state: JSON.stringify({ ...JSON.parse(state.state), language: 'pt-BR' }) }).where('id', '=', ptChat.sessionId).execute();
    expect((await api(member.token, 'POST', `/conversations/${ptChat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    expect((await view(ptChat.sessionId)).messages.at(-1)).toMatchObject({ from: 'agent', text: 'Obrigado por escrever ao Suporte!' });

    const back = await takenChat();
    expect((await api(member.token, 'POST', `/conversations/${back.id}/close`, { outcome: 'back_to_plan' })).statusCode).toBe(200);
    const afterBack = await until('the plan’s answer', async () => {
      const current = await view(back.sessionId);
      return current.messages.some((message) => message.text === 'Welcome back to the bot.') ? current : undefined;
    });
    expect(afterBack.messages.filter((message) => message.from === 'agent')).toEqual([]);
  });

  test('a Portuguese plan in an English tenant: the chat is in Portuguese, and so is its goodbye', async () => {
    const base = handOffPlan(queue.id, { timeoutS: 120, onAnswer: 'De volta ao robô.' });
    const portuguese = await storePlan(server.ctx, member.tenantId, { name: 'Balcão', ...base, settings: { ...base.settings, language: 'pt-BR' } });
    const original = number.chat_plan_id;
    expect((await api(member.token, 'PATCH', `/numbers/${number.id}`, { chat_plan_id: portuguese })).statusCode).toBe(200);
    try {
      await api(member.token, 'PATCH', `/destinations/${queue.id}`, { closing_message_en: '', closing_message_pt: '' });
      const chat = await takenChat();
      expect((await api(member.token, 'POST', `/conversations/${chat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
      expect((await view(chat.sessionId)).messages.at(-1)).toMatchObject({ from: 'agent', text: defaultClosingMessages.pt });
    } finally {
      await api(member.token, 'PATCH', `/numbers/${number.id}`, { chat_plan_id: original });
    }
  });

  test('a queue without its own text sends the default', async () => {
    await api(member.token, 'PATCH', `/destinations/${queue.id}`, { closing_message_en: '', closing_message_pt: '' });
    const chat = await takenChat();
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    expect((await view(chat.sessionId)).messages.at(-1)).toMatchObject({ from: 'agent', text: defaultClosingMessages.en });
  });
});

describe('private notes', () => {
  test('agents see a note in the transcript and the report; the customer never does', async () => {
    const chat = await takenChat();
    await widget('POST', `/conversations/${chat.sessionId}/messages`, { id: 'n1', text: 'My order is late' });
    const note = await api(member.token, 'POST', `/conversations/${chat.id}/notes`, { text: 'VIP customer: offer free shipping' });
    expect(note.statusCode, note.body).toBe(201);
    expect(note.json()).toMatchObject({ author: 'note', agent: { id: member.userId, name: member.username }, text: 'VIP customer: offer free shipping' });

    const detail = (await api(guest.token, 'GET', `/conversations/${chat.id}`)).json<ConversationDetail>();
    // Besides what the customer may have been told of their place while waiting (queue-place.ts, sent
    // after the start answers, and rightly not at all when the take came first).
    expect(detail.messages.filter((message) => message.author !== 'bot').map((message) => [message.author, message.text])).toEqual([
      ['customer', 'My order is late'],
      ['note', 'VIP customer: offer free shipping'],
    ]);
    expect((await view(chat.sessionId)).messages.map((message) => message.text)).not.toContain('VIP customer: offer free shipping');

    expect((await api(member.token, 'POST', `/conversations/${chat.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    // After the close too: a remark for whoever reads the report.
    expect((await api(member.token, 'POST', `/conversations/${chat.id}/notes`, { text: 'Shipping refunded' })).statusCode).toBe(201);
    expect((await view(chat.sessionId)).messages.map((message) => message.text)).not.toContain('Shipping refunded');
    const reports = await until('the report', async () => {
      const found = (await api(member.token, 'GET', `/reports?${q('filter', { where: { session_id: chat.sessionId } })}`)).json<CallReportRecord[]>();
      return found.length > 0 ? found : undefined;
    });
    expect(reports[0]!.handoffs![0]!.messages.filter((message) => message.author === 'note')).toEqual([
      { author: 'note', agent_name: member.username, text: 'VIP customer: offer free shipping', attachment: null, at: expect.any(String) },
      { author: 'note', agent_name: member.username, text: 'Shipping refunded', attachment: null, at: expect.any(String) },
    ]);
  });

  test('a guest is refused before the body is read; bad input and another tenant’s chat are answered with their codes', async () => {
    const chat = await takenChat();
    expect(errorOf(await api(guest.token, 'POST', `/conversations/${chat.id}/notes`, { text: '' }))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    expect(errorOf(await api(guest.token, 'POST', `/conversations/${chat.id}/notes`, { text: 'Hi' }))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    expect(errorOf(await api(member.token, 'POST', `/conversations/${chat.id}/notes`, { text: '   ' }))).toMatchObject({ statusCode: 400, code: 'invalid_input' });
    expect(errorOf(await api(member.token, 'POST', `/conversations/${chat.id}/notes`, { text: 'x'.repeat(2001) }))).toMatchObject({ statusCode: 400, code: 'invalid_input' });
    expect(errorOf(await api(stranger.token, 'POST', `/conversations/${chat.id}/notes`, { text: 'Hi' }))).toMatchObject({ statusCode: 404, code: 'conversation_not_found' });
  });
});

describe('the customer left', () => {
  test('a WhatsApp chat past the 24-hour window tells the agents once per silence; a web chat is left alone', async () => {
    const whatsapp = await takenChat();
    const webchat = await takenChat();
    // As if the first were a WhatsApp chat whose customer last wrote 25 hours ago.
    const longAgo = new Date(Date.now() - 25 * 3600_000).toISOString();
    await server.ctx.db.updateTable('conversations').set({ provider: 'whatsapp', created_at: longAgo }).where('id', '=', whatsapp.id).execute();
    await server.ctx.db.updateTable('conversations').set({ created_at: longAgo }).where('id', '=', webchat.id).execute();
    const sweep = (now = new Date()) => sweepCustomersGone({ ...server.ctx }, now);
    const notices = async (id: number) => (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>().messages.filter((message) => message.author === 'system').map((message) => message.text);
    expect(await sweep()).toContain(whatsapp.id);
    expect(await sweep()).not.toContain(whatsapp.id);
    expect(await notices(whatsapp.id)).toEqual(['customer_left:whatsapp_window']);
    // The customer writes again, then falls silent past the window once more: told again.
    await server.ctx.db.insertInto('conversation_messages').values({ conversation_id: whatsapp.id, author: 'customer', agent_id: null, text: 'Back again', attachment: null, external_id: null, created_at: new Date().toISOString() }).execute();
    expect(await sweep()).not.toContain(whatsapp.id);
    expect(await sweep(new Date(Date.now() + 25 * 3600_000))).toContain(whatsapp.id);
    expect(await notices(whatsapp.id)).toEqual(['customer_left:whatsapp_window', 'customer_left:whatsapp_window']);
    // A web chat has no such window (its widget's silence is told apart, below).
    expect(await notices(webchat.id)).not.toContain('customer_left:whatsapp_window');
  });

  test('a web chat whose widget stopped asking for 90 s (closed, or the page left) tells the agents, once per absence', async () => {
    const chat = await takenChat();
    const sweep = (now: Date) => sweepCustomersGone({ ...server.ctx }, now);
    const seenAt = async () => (await server.ctx.db.selectFrom('conversations').select('customer_seen_at').where('id', '=', chat.id).executeTakeFirstOrThrow()).customer_seen_at;
    // The widget's question stamps it.
    await view(chat.sessionId);
    const first = await seenAt();
    expect(first).not.toBeNull();
    expect(await sweep(new Date(Date.parse(first!) + 60_000))).not.toContain(chat.id);
    expect(await sweep(new Date(Date.parse(first!) + 91_000))).toContain(chat.id);
    expect(await sweep(new Date(Date.parse(first!) + 200_000))).not.toContain(chat.id);
    const notices = async () => (await api(member.token, 'GET', `/conversations/${chat.id}`)).json<ConversationDetail>().messages.filter((message) => message.author === 'system').map((message) => message.text);
    expect(await notices()).toEqual(['customer_left:widget_closed']);
    // Back (a later question), then gone again: told again.
    await server.ctx.db.updateTable('conversations').set({ customer_seen_at: new Date(Date.now() + 1000).toISOString() }).where('id', '=', chat.id).execute();
    expect(await sweep(new Date(Date.now() + 1000 + 91_000))).toContain(chat.id);
    expect(await notices()).toEqual(['customer_left:widget_closed', 'customer_left:widget_closed']);
  });
});

describe('saved replies', () => {
  test('a user keeps the tenant’s replies; a guest reads them; another tenant sees none', async () => {
    const created = await api(member.token, 'POST', '/saved-replies', { name: 'Greeting', text: 'Hello {{name}}, how can I help?' });
    expect(created.statusCode, created.body).toBe(201);
    const reply = created.json<SavedReply>();
    expect(reply).toMatchObject({ name: 'Greeting', text: 'Hello {{name}}, how can I help?', tenant_id: member.tenantId });
    expect(errorOf(await api(member.token, 'POST', '/saved-replies', { name: 'Greeting', text: 'Again' }))).toMatchObject({ statusCode: 409, code: 'name_already_exists' });

    const patched = await api(member.token, 'PATCH', `/saved-replies/${reply.id}`, { text: 'Hi {{name}}!' });
    expect(patched.json<SavedReply>()).toMatchObject({ name: 'Greeting', text: 'Hi {{name}}!' });
    expect((await api(guest.token, 'GET', '/saved-replies')).json<SavedReply[]>().map((row) => row.name)).toEqual(['Greeting']);
    expect((await api(stranger.token, 'GET', '/saved-replies')).json<SavedReply[]>()).toEqual([]);
    expect(errorOf(await api(stranger.token, 'PATCH', `/saved-replies/${reply.id}`, { text: 'Mine now' })).statusCode).toBe(404);

    expect((await api(member.token, 'DELETE', `/saved-replies/${reply.id}`)).statusCode).toBe(204);
    expect((await api(member.token, 'GET', '/saved-replies')).json<SavedReply[]>()).toEqual([]);
  });

  test('a guest is refused with readonly_only before any body validation; bad input is invalid_input', async () => {
    const kept = (await api(member.token, 'POST', '/saved-replies', { name: 'Bye', text: 'Goodbye!' })).json<SavedReply>();
    expect(errorOf(await api(guest.token, 'POST', '/saved-replies', { name: '' }))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    expect(errorOf(await api(guest.token, 'PATCH', `/saved-replies/${kept.id}`, { text: 42 }))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    expect(errorOf(await api(guest.token, 'DELETE', `/saved-replies/${kept.id}`))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    expect(errorOf(await api(member.token, 'POST', '/saved-replies', { name: 'x'.repeat(61), text: 'Hi' }))).toMatchObject({ statusCode: 400, code: 'invalid_input' });
    expect(errorOf(await api(member.token, 'POST', '/saved-replies', { name: 'Empty', text: '  ' }))).toMatchObject({ statusCode: 400, code: 'invalid_input' });
  });
});
