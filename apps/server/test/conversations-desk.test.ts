/**
 * Conversations (issue 30, docs/conversations.md), their second half: an outside desk that keeps the chat
 * (a URL destination answering accepted), and a transfer not accepted in time. The first: conversations.test.ts.
 */
import type { ConversationDetail, ConversationRow, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { errorOf, q } from './harness.ts';
import { createPlanWebhookDispatcher } from '../src/modules/plan-webhook/plan-webhook.dispatcher.ts';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { storePlan } from './sessions-helpers.ts';
import { type DeskReceiver, type DeskRequest, startDeskReceiver } from './desk-receiver.ts';
import { sweepTransfers } from '../src/modules/conversations/transfer-sweep.ts';
import { SITE, server, admin, member, colleague, queue, queuePlan, api, startChat, conversationOf, setPresence, useConversationsServer } from './conversations-fixture.ts';

useConversationsServer();

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
