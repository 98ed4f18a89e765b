/**
 * Conversations (issue 30, docs/conversations.md) through the web chat as a visitor's page calls it
 * and the console's API: a chat reaching a queue destination waits for an agent (busy with nobody
 * online, no_answer when nobody takes it in time), one of two agents taking at once wins, the
 * customer's messages go to the agent and not the plan, the agent's messages and typing reach the
 * widget, transfer, close back to the plan or resolved; guests read only; tenants stay apart.
 */
import type { AuditEntry, CallReportRecord, ConversationDetail, ConversationEvent, ConversationRow, ConversationSummary, Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, createTenantUser, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { webchatVisitor } from './webchat-visitor.ts';
import { createPlanWebhookDispatcher } from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';
import { type DeskReceiver, type DeskRequest, startDeskReceiver } from './desk-receiver.ts';
import { subscribeConversations } from '../src/modules/conversations/conversation-events.ts';
import { sweepTransfers } from '../src/modules/conversations/transfer-sweep.ts';
import { defaultClosingMessages } from '../src/modules/conversations/closing-message.ts';

const SITE = 'https://shop.example.com';

let server: TestServer;
let admin: string;
let member: TenantMember;
let colleague: TenantMember;
let guest: TenantMember;
let stranger: TenantMember;
let queue: Destination;
let otherQueue: Destination;
let number: PhoneNumber;

/** Greets, hands the chat to the destination; each exit says which it was. */
const queuePlan = (destinationId: number) => ({ name: 'Front desk', ...handOffPlan(destinationId, { timeoutS: 120, onAnswer: 'Welcome back to the bot.' }) });

const { widget, view } = webchatVisitor(() => server, () => number.webchat_key!, SITE);

const texts = (conversation: WebchatConversation) => conversation.messages.map((message) => `${message.from}${message.agent_name ? `(${message.agent_name})` : ''}: ${message.text}`);
const api = (token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

async function startChat(): Promise<string> {
  const started = await widget('POST', '/conversations');
  expect(started.statusCode, started.body).toBe(200);
  return started.json<WebchatConversation>().conversation_id;
}

/** The conversation the chat's hand-off made (it follows the turn that reached the block). */
const conversationOf = (sessionId: string) =>
  until(`the conversation of ${sessionId}`, () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).orderBy('id', 'desc').executeTakeFirst());

/** The widget's view once it shows `text`. */
const widgetShows = (sessionId: string, text: string) => until(`the widget to show ${text}`, async () => {
  const current = await view(sessionId);
  return current.messages.some((message) => message.text === text) ? current : undefined;
});

beforeAll(async () => {
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000' });
  admin = await server.login();
  member = await createTenantMember(server, admin, 'conv');
  colleague = await createTenantUser(server, admin, member.tenantId, 'conv-colleague', 'user');
  guest = await createTenantUser(server, admin, member.tenantId, 'conv-guest', 'guest');
  stranger = await createTenantMember(server, admin, 'conv-other');
  const created = await api(member.token, 'POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId, colleague.userId] });
  expect(created.statusCode, created.body).toBe(201);
  queue = created.json<Destination>();
  otherQueue = (await api(member.token, 'POST', '/destinations', { name: 'Billing', kind: 'chat', chat_target: 'queue', agent_ids: [colleague.userId] })).json<Destination>();
  const plan = await storePlan(server.ctx, member.tenantId, queuePlan(queue.id));
  const response = await api(member.token, 'POST', '/numbers', { number: '+551140003001', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(response.statusCode, response.body).toBe(201);
  number = response.json<PhoneNumber>();
});

afterAll(() => server?.close());

const setPresence = async (token: string, status: 'online' | 'away' | 'offline') => expect((await api(token, 'PUT', '/agents/me', { status })).statusCode).toBe(200);

describe('a chat reaching a queue', () => {
  test('no agent online: the block takes busy at once, and the closed conversation says so', async () => {
    await setPresence(member.token, 'offline');
    await setPresence(colleague.token, 'away');
    const sessionId = await startChat();
    const shown = await widgetShows(sessionId, 'Everyone is busy.');
    expect(shown.status).toBe('ended');
    expect(await conversationOf(sessionId)).toMatchObject({ status: 'closed', outcome: 'busy' });
  });

  test('an agent online: the chat waits in the queue, parked (no idle timeout), listed for the queue’s agents only', async () => {
    await setPresence(member.token, 'online');
    const sessionId = await startChat();
    const record = await conversationOf(sessionId);
    expect(record).toMatchObject({ status: 'waiting', destination_id: queue.id });
    const session = await server.ctx.db.selectFrom('sessions').select(['status', 'timeout_time']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(session).toEqual({ status: 'waiting', timeout_time: null });
    const waiting = (await api(member.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>();
    expect(waiting.find((row) => row.id === record.id)).toMatchObject({ queue: { id: queue.id, name: 'Support' }, agent: null, channel: 'chat', provider: 'webchat' });
    // Another tenant's user neither lists nor reads it.
    expect((await api(stranger.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>()).toEqual([]);
    expect(errorOf(await api(stranger.token, 'GET', `/conversations/${record.id}`))).toMatchObject({ statusCode: 404, code: 'conversation_not_found' });
    expect(errorOf(await api(stranger.token, 'POST', `/conversations/${record.id}/take`))).toMatchObject({ statusCode: 404, code: 'conversation_not_found' });
    const summary = (await api(member.token, 'GET', '/conversations/summary')).json<ConversationSummary>();
    expect(summary.queues.find((row) => row.id === queue.id)).toMatchObject({ name: 'Support', agents_online: 1 });
    expect(summary.waiting).toBeGreaterThanOrEqual(1);
  });

  test('nobody takes it within the block’s timeout: no_answer, by the sweep of any instance', async () => {
    const sessionId = await startChat();
    const record = await conversationOf(sessionId);
    // The deadline passed (the block's timeout_s is 120 s): moved back rather than waited for.
    await server.ctx.db.updateTable('conversations').set({ deadline_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', record.id).execute();
    await server.ctx.sessions.sweepTimeouts();
    await widgetShows(sessionId, 'Nobody answered.');
    expect(await server.ctx.db.selectFrom('conversations').select(['status', 'outcome']).where('id', '=', record.id).executeTakeFirstOrThrow()).toEqual({ status: 'closed', outcome: 'no_answer' });
    // A take after the sweep is told the chat is closed.
    expect(errorOf(await api(member.token, 'POST', `/conversations/${record.id}/take`))).toMatchObject({ statusCode: 409, code: 'conversation_closed' });
  });
});

describe('an agent holds the chat', () => {
  let sessionId: string;
  let id: number;

  test('two agents take at once: one wins, the other is told conversation_taken', async () => {
    await setPresence(member.token, 'online');
    sessionId = await startChat();
    id = (await conversationOf(sessionId)).id;
    const [first, second] = await Promise.all([api(member.token, 'POST', `/conversations/${id}/take`), api(colleague.token, 'POST', `/conversations/${id}/take`)]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = first.statusCode === 409 ? first : second;
    expect(errorOf(loser).code).toBe('conversation_taken');
    const winner = first.statusCode === 200 ? member : colleague;
    // The test goes on with the member holding it.
    if (winner !== member) {
      const moved = await api(colleague.token, 'POST', `/conversations/${id}/transfer`, { agent_id: member.userId });
      expect(moved.statusCode, moved.body).toBe(200);
    }
    const row = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
    expect(row).toMatchObject({ status: 'open', agent: { id: member.userId }, variables: { topic: 'billing' }, plan: { name: 'Front desk' } });
    expect(row.bot_transcript.map((entry) => entry.text)).toContain('Hello! Passing you to a person.');
  });

  test('the customer’s messages go to the agent, not the plan; the agent’s reach the widget with their name, and typing shows', async () => {
    const before = await server.ctx.sessions.find(sessionId);
    const said = await widget('POST', `/conversations/${sessionId}/messages`, { id: 'm1', text: 'I was charged twice' });
    expect(said.statusCode, said.body).toBe(200);
    // Sent again (a retry of the widget): stored once.
    await widget('POST', `/conversations/${sessionId}/messages`, { id: 'm1', text: 'I was charged twice' });
    expect((await server.ctx.sessions.find(sessionId))!.revision).toBe(before!.revision);
    const detail = (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
    // (A system note of the transfer comes first when the colleague won the race above.)
    // (The customer's place in the queue, the bot's, came before it.)
    expect(detail.messages.filter((message) => message.author !== 'system' && message.author !== 'bot').map((message) => [message.author, message.text])).toEqual([['customer', 'I was charged twice']]);
    expect(detail.unread).toBe(1);
    expect((await api(member.token, 'POST', `/conversations/${id}/read`)).statusCode).toBe(204);
    expect((await api(member.token, 'GET', '/conversations?status=open')).json<ConversationRow[]>().find((row) => row.id === id)).toMatchObject({
      unread: 0,
      last_message: { author: 'customer', text: 'I was charged twice' },
    });

    // The customer types in the widget: the consoles hear conversation.customer_typing (the widget's own poll is not woken).
    const heard: ConversationEvent[] = [];
    const stop = subscribeConversations(server.ctx.bus, ({ event }) => heard.push(event), { tenantId: member.tenantId });
    expect((await widget('POST', `/conversations/${sessionId}/typing`, {})).statusCode).toBe(204);
    await until('the customer’s typing', async () => heard.find((event) => event.type === 'conversation.customer_typing'));
    stop();
    expect(heard).toEqual([{ type: 'conversation.customer_typing', conversation_id: id }]);

    expect((await api(member.token, 'POST', `/conversations/${id}/typing`)).statusCode).toBe(204);
    const typing = await until('the widget to show the typing', async () => (await view(sessionId)).typing ?? undefined);
    expect(typing).toEqual({ type: 'typing', agent_name: member.username });

    // The widget's long poll, waiting past what it shows, answers with the agent's message.
    const shown = await view(sessionId);
    const polled = widget('GET', `/conversations/${sessionId}?after=${shown.revision}&wait=25`);
    const sent = await api(member.token, 'POST', `/conversations/${id}/messages`, { text: 'Let me check that for you.' });
    expect(sent.statusCode, sent.body).toBe(201);
    const after = (await polled).json<WebchatConversation>();
    expect(after.typing).toBeNull();
    expect(texts(after).slice(-2)).toEqual(['user: I was charged twice', `agent(${member.username}): Let me check that for you.`]);
    expect(after.revision).toBeGreaterThan(shown.revision);
    // Only the agent holding it writes.
    expect(errorOf(await api(colleague.token, 'POST', `/conversations/${id}/messages`, { text: 'Hi' }))).toMatchObject({ statusCode: 409, code: 'conversation_not_yours' });
  });

  test('guests read conversations but change nothing', async () => {
    expect((await api(guest.token, 'GET', `/conversations/${id}`)).statusCode).toBe(200);
    expect((await api(guest.token, 'GET', '/conversations?status=open')).json<ConversationRow[]>().map((row) => row.id)).toContain(id);
    for (const [url, payload] of [
      ['take', undefined],
      ['messages', { text: 'Hi' }],
      ['close', { outcome: 'resolved' }],
      ['transfer', { queue_id: otherQueue.id }],
      // It writes the agent's unread count: refused as every write is.
      ['read', undefined],
      ['typing', undefined],
    ] as const) {
      expect(errorOf(await api(guest.token, 'POST', `/conversations/${id}/${url}`, payload))).toMatchObject({ statusCode: 403, code: 'readonly_only' });
    }
  });

  test('transfer to another queue: it waits there for that queue’s agents', async () => {
    const moved = await api(member.token, 'POST', `/conversations/${id}/transfer`, { queue_id: otherQueue.id });
    expect(moved.json<ConversationRow>()).toMatchObject({ status: 'waiting', queue: { id: otherQueue.id, name: 'Billing' }, agent: null });
    expect((await api(member.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>().map((row) => row.id)).not.toContain(id);
    expect((await api(colleague.token, 'GET', '/conversations?status=waiting')).json<ConversationRow[]>().map((row) => row.id)).toContain(id);
    expect((await api(colleague.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
  });

  test('close back to the plan: the plan goes on from the answer exit, and the widget shows it', async () => {
    expect(errorOf(await api(member.token, 'POST', `/conversations/${id}/close`, { outcome: 'back_to_plan' }))).toMatchObject({ code: 'conversation_not_yours' });
    const closed = await api(colleague.token, 'POST', `/conversations/${id}/close`, { outcome: 'back_to_plan' });
    expect(closed.json<ConversationRow>()).toMatchObject({ status: 'closed', outcome: 'back_to_plan' });
    await widgetShows(sessionId, 'Welcome back to the bot.');
    // The plan has the chat again: a message is the plan's.
    expect(errorOf(await api(colleague.token, 'POST', `/conversations/${id}/messages`, { text: 'Hi' })).code).toBe('conversation_closed');
    const entries = (await api(admin, 'GET', `/audit?${q('filter', { where: { entity: 'conversation', entity_id: String(id) }, order: ['id ASC'] })}`)).json<AuditEntry[]>();
    expect(entries.map((entry) => (entry.after as { event: string }).event)).toEqual(expect.arrayContaining(['take', 'transfer', 'close']));
  });

  test('close resolved: the chat ends', async () => {
    const resolvedSession = await startChat();
    const record = await conversationOf(resolvedSession);
    // The customer is told their place once the start has answered (queue-place.ts); a take before
    // that rightly tells them nothing, so the agent takes the chat after it, as a person would.
    await until('the queue place line', async () => ((await view(resolvedSession)).messages.some((message) => message.text.includes('in the queue')) ? true : undefined));
    expect((await api(member.token, 'POST', `/conversations/${record.id}/take`)).statusCode).toBe(200);
    await widget('POST', `/conversations/${resolvedSession}/messages`, { id: 'r1', text: 'Refund of order 4711 please' });
    expect((await api(member.token, 'POST', `/conversations/${record.id}/messages`, { text: 'Anything else?' })).statusCode).toBe(201);
    expect((await api(member.token, 'POST', `/conversations/${record.id}/close`, { outcome: 'resolved' })).statusCode).toBe(200);
    await until('the chat to end', async () => ((await view(resolvedSession)).status === 'ended' ? true : undefined));
    const closedList = (await api(member.token, 'GET', '/conversations?status=closed&q=4711')).json<ConversationRow[]>();
    expect(closedList.map((row) => [row.id, row.outcome])).toEqual([[record.id, 'resolved']]);

    // The chat's report shows the hand-off and what was said with the agent, by name.
    const reports = await until('the report', async () => {
      const found = (await api(member.token, 'GET', `/reports?${q('filter', { where: { session_id: resolvedSession } })}`)).json<CallReportRecord[]>();
      return found.length > 0 ? found : undefined;
    });
    expect(reports[0]!.handoffs).toEqual([
      {
        conversation_id: record.id,
        queue: { id: queue.id, name: 'Support' },
        agent: { id: member.userId, name: member.username },
        outcome: 'resolved',
        wait_s: expect.any(Number),
        handling_s: expect.any(Number),
        messages: [
          // Told while waiting (queue-place.ts).
          { author: 'bot', agent_name: null, text: expect.stringContaining('in the queue'), attachment: null, at: expect.any(String) },
          { author: 'customer', agent_name: null, text: 'Refund of order 4711 please', attachment: null, at: expect.any(String) },
          { author: 'agent', agent_name: member.username, text: 'Anything else?', attachment: null, at: expect.any(String) },
          // The queue has no closing message of its own: the default, in the session's language.
          { author: 'agent', agent_name: member.username, text: defaultClosingMessages.en, attachment: null, at: expect.any(String) },
        ],
      },
    ]);
  });
});

describe('an outside desk keeps the chat (a URL destination answering accepted)', () => {
  let desk: DeskReceiver;
  let received: DeskRequest[];
  let deskNumber: PhoneNumber;

  beforeAll(async () => {
    desk = await startDeskReceiver();
    received = desk.received;
    // The desk listens on 127.0.0.1 over http, which the API's chat destinations (https) and the outbound policy refuse by default.
    await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
    const now = new Date().toISOString();
    const destination = await server.ctx.db
      .insertInto('destinations')
      .values({ tenant_id: member.tenantId, name: 'Help desk', kind: 'chat', chat_target: 'url', uri: desk.url, description: '', created_time: now, updated_time: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const plan = await storePlan(server.ctx, member.tenantId, { ...queuePlan(destination.id), name: 'Desk plan' });
    deskNumber = (await api(member.token, 'POST', '/numbers', { number: '+551140003002', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] })).json<PhoneNumber>();
  });

  afterAll(() => desk?.close());

  const deskWidget = (method: 'GET' | 'POST', url: string, payload?: object) =>
    server.app.inject({ method, url: `/api/v1/webchat/${deskNumber.webchat_key}${url}`, headers: { origin: SITE }, ...(payload && { payload }) });

  test('the desk writes through the reply URL with its token, hears the customer’s messages signed, and closes back to the plan', async () => {
    const sessionId = (await deskWidget('POST', '/conversations')).json<WebchatConversation>().conversation_id;
    const record = await conversationOf(sessionId);
    expect(record).toMatchObject({ status: 'open', agent_id: null, provider: 'webchat' });
    const handoff = JSON.parse(received.find((request) => request.event === 'chat.handoff')!.body) as { data: { reply: { url: string; token: string } } };
    const { url, token } = handoff.data.reply;
    expect(url).toBe(`${server.config.publicUrl}/api/v1/handoff/${encodeURIComponent(sessionId)}/${record.handoff_revision}`);
    // Only the token's hash is kept.
    expect(record.reply_token_hash).not.toContain(token);
    const reply = (path: string, payload: object, bearer = token) =>
      server.app.inject({ method: 'POST', url: `${new URL(url).pathname}${path}`, headers: { authorization: `Bearer ${bearer}` }, payload });

    expect(errorOf(await reply('/messages', { text: 'Hi' }, `${token}x`))).toMatchObject({ statusCode: 401, code: 'reply_token_invalid' });
    expect((await reply('/messages', { text: 'Hello, this is the help desk.' })).statusCode).toBe(204);
    const shown = await until('the desk’s message in the widget', async () => {
      const current = (await deskWidget('GET', `/conversations/${sessionId}`)).json<WebchatConversation>();
      return current.messages.some((message) => message.from === 'agent') ? current : undefined;
    });
    expect(shown.messages.at(-1)).toMatchObject({ from: 'agent', agent_name: 'Help desk', text: 'Hello, this is the help desk.' });

    expect((await deskWidget('POST', `/conversations/${sessionId}/messages`, { id: 'd1', text: 'My parcel never came' })).statusCode).toBe(200);
    const event = received.find((request) => request.event === 'chat.message')!;
    const secret = (await api(member.token, 'GET', '/webhook-secret')).json<{ secret: string }>().secret;
    expect(isValidPlanWebhookSignature(secret, event)).toBe(true);
    expect(JSON.parse(event.body)).toMatchObject({ event: 'chat.message', tenant_id: member.tenantId, data: { session_id: sessionId, text: 'My parcel never came' } });

    expect((await reply('/close', { outcome: 'back_to_plan' })).statusCode).toBe(204);
    await until('the plan’s answer exit', async () => ((await deskWidget('GET', `/conversations/${sessionId}`)).json<WebchatConversation>().messages.some((message) => message.text === 'Welcome back to the bot.') ? true : undefined));
    expect(errorOf(await reply('/messages', { text: 'Still there?' }))).toMatchObject({ statusCode: 409, code: 'conversation_closed' });
  });

  test('a chat.message the desk misses waits in the queue, is retried with backoff under the same delivery id by any instance, and a bounded number of times', async () => {
    const sessionId = (await deskWidget('POST', '/conversations')).json<WebchatConversation>().conversation_id;
    await conversationOf(sessionId);
    const eventsOf = (text: string) => received.filter((request) => request.event === 'chat.message' && (JSON.parse(request.body) as { data: { text: string } }).data.text === text);
    const rowOf = (id: string) => server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', Number(id)).executeTakeFirstOrThrow();
    desk.failing = true;
    expect((await deskWidget('POST', `/conversations/${sessionId}/messages`, { id: 'r1', text: 'Anyone there?' })).statusCode).toBe(200);
    const [first] = eventsOf('Anyone there?');
    expect(first).toMatchObject({ status: 503 });
    // Stored before it was sent: a restart or another instance picks it up.
    const queued = await rowOf(first!.delivery);
    expect(queued).toMatchObject({ event: 'chat.message', status: 'pending', attempts: 1, url: desk.url });
    expect(Date.parse(queued.next_attempt_time)).toBeGreaterThan(Date.now());

    desk.failing = false;
    let clock = Date.now();
    const dispatcher = createPlanWebhookDispatcher(server.ctx, { now: () => clock, random: () => 0.5 });
    expect(await dispatcher.runOnce()).toEqual([]);
    clock += 60_000;
    expect(await dispatcher.runOnce()).toEqual([{ id: queued.id, attempts: 2, status: 'delivered' }]);
    const attempts = eventsOf('Anyone there?');
    expect(attempts.map((request) => request.status)).toEqual([503, 200]);
    // The idempotency key: the same delivery id in the header and the body on every attempt.
    expect(new Set(attempts.map((request) => request.delivery))).toEqual(new Set([String(queued.id)]));
    expect(new Set(attempts.map((request) => (JSON.parse(request.body) as { id: number }).id))).toEqual(new Set([queued.id]));

    // A desk that stays down: tried 8 times in all (docs/handoff.md), then failed, never again.
    desk.failing = true;
    expect((await deskWidget('POST', `/conversations/${sessionId}/messages`, { id: 'r2', text: 'Hello?' })).statusCode).toBe(200);
    for (let round = 0; round < 12; round++) {
      clock += 7 * 3_600_000;
      await dispatcher.runOnce();
    }
    expect(eventsOf('Hello?')).toHaveLength(8);
    expect(await rowOf(eventsOf('Hello?')[0]!.delivery)).toMatchObject({ status: 'failed', attempts: 8 });
    desk.failing = false;
  });
});

describe('a transfer not accepted in time goes back (conversation_transfer_timeout_seconds, 120 by default)', () => {
  /** A chat the member took and handed to the colleague; answers its id. */
  async function handedToColleague(): Promise<number> {
    await setPresence(member.token, 'online');
    await setPresence(colleague.token, 'online');
    const { id } = await conversationOf(await startChat());
    expect((await api(member.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
    const moved = await api(member.token, 'POST', `/conversations/${id}/transfer`, { agent_id: colleague.userId });
    expect(moved.json<ConversationRow>()).toMatchObject({ status: 'open', agent: { id: colleague.userId } });
    return id;
  }
  const detailOf = async (id: number) => (await api(member.token, 'GET', `/conversations/${id}`)).json<ConversationDetail>();
  const past = (seconds: number) => new Date(Date.now() + seconds * 1000);

  test('the agent it went to does not answer: it is the transferring agent’s again (online), told in the transcript', async () => {
    const id = await handedToColleague();
    const stored = await server.ctx.db.selectFrom('conversations').select(['transfer_deadline_at', 'transferred_from']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored.transferred_from).toBe(member.userId);
    expect(Date.parse(stored.transfer_deadline_at!) - Date.now()).toBeGreaterThan(110_000);
    expect(Date.parse(stored.transfer_deadline_at!) - Date.now()).toBeLessThanOrEqual(120_000);
    // Before the deadline nothing moves.
    expect(await sweepTransfers(server.ctx, past(60))).toEqual([]);
    expect(await sweepTransfers(server.ctx, past(121))).toEqual([id]);
    const back = await detailOf(id);
    expect(back).toMatchObject({ status: 'open', agent: { id: member.userId } });
    expect(back.messages.at(-1)).toMatchObject({ author: 'system', text: `transfer not accepted: back to ${member.username}` });
    // Once back, nothing is due any more.
    expect(await sweepTransfers(server.ctx, past(600))).toEqual([]);
  });

  test('the new agent answers in time: the transfer is accepted and the chat stays theirs', async () => {
    const id = await handedToColleague();
    expect((await api(colleague.token, 'POST', `/conversations/${id}/messages`, { text: 'Hi, I am taking over.' })).statusCode).toBe(201);
    expect(await sweepTransfers(server.ctx, past(121))).toEqual([]);
    expect(await detailOf(id)).toMatchObject({ status: 'open', agent: { id: colleague.userId } });
  });

  test('the transferring agent is offline by then: it waits in its queue, where any of its agents takes it', async () => {
    const id = await handedToColleague();
    await setPresence(member.token, 'offline');
    try {
      expect(await sweepTransfers(server.ctx, past(121))).toEqual([id]);
      const back = await detailOf(id);
      expect(back).toMatchObject({ status: 'waiting', agent: null, queue: { id: queue.id, name: 'Support' } });
      // Back in the queue the customer is told their place again (queue-place.ts), so that line may
      // follow the system note.
      expect(back.messages.filter((message) => message.author === 'system').at(-1)).toMatchObject({ text: 'transfer not accepted: back to Support' });
      expect((await api(colleague.token, 'POST', `/conversations/${id}/take`)).statusCode).toBe(200);
    } finally {
      await setPresence(member.token, 'online');
    }
  });

  test('the timeout is a general setting: 15 to 3600 seconds', async () => {
    const setting = (await api(admin, 'GET', `/configurations?${q('filter', { where: { name: 'conversation_transfer_timeout_seconds' } })}`)).json<{ id: number; value: string }[]>()[0]!;
    expect(setting.value).toBe('120');
    const patch = (value: string) => server.call({ method: 'PATCH', url: `/configurations/${setting.id}`, token: admin, payload: { value } });
    expect((await patch('14')).statusCode).toBe(400);
    expect((await patch('3601')).statusCode).toBe(400);
    expect((await patch('30')).statusCode).toBe(200);
    const id = await handedToColleague();
    try {
      expect(await sweepTransfers(server.ctx, past(31))).toEqual([id]);
    } finally {
      await patch('120');
    }
  });
});
