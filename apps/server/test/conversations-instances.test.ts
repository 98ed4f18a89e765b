/**
 * Conversations across instances (issue 30, docs/conversations.md, "Live"), PostgreSQL: an agent
 * whose console streams the events of instance A, and a visitor whose widget talks to instance B.
 * The chat waiting, the customer's typing and message and the close reach A's stream; the agent's message,
 * sent on A, wakes the widget's long poll on B. Two real server processes on one database.
 */
import type { ConversationEvent, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { ADMIN, dialect } from './harness.ts';
import { openEventFeed } from './live-feed.ts';
import { type Cleanups, createTenantMemberOver, request, type ServerProcess, startServerProcess } from './server-process.ts';
import { planEdge, planNode } from './sessions-helpers.ts';

const SITE = 'https://shop.example.com';
const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.runIf(dialect === 'postgres')('an agent on one instance, the visitor on another', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let member: { tenantId: number; token: string };
  let number: PhoneNumber;

  const widget = async (method: 'GET' | 'POST', path: string, body?: object) => {
    const answer = await request(b.agent, b.port, method, `/api/v1/webchat/${number.webchat_key}${path}`, body, undefined, { origin: SITE });
    expect(answer.status, answer.body).toBe(200);
    return JSON.parse(answer.body) as WebchatConversation;
  };

  beforeAll(async () => {
    a = await startServerProcess(cleanups, { MASTER_KEY: '43'.repeat(32) });
    b = await startServerProcess(cleanups, { MASTER_KEY: '43'.repeat(32), DATA_DIR: a.env.DATA_DIR, ...(a.env.DATABASE_URL && { DATABASE_URL: a.env.DATABASE_URL }) });
    const { token: admin } = await a.call<{ token: string }>('POST', '/login', ADMIN);
    member = await createTenantMemberOver(a.call, admin, 'conv-instances');
    const me = await a.call<{ id: number }>('GET', '/whoami', undefined, member.token);
    const queue = await b.call<{ id: number }>('POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [me.id] }, member.token);
    const plan = await b.call<{ id: number }>('POST', '/visual-plans', { name: 'People' }, member.token);
    const say = (id: string, text: string) => planNode(id, 'play_message', { voice_text: text, chat_text: text });
    await b.call('PUT', `/visual-plans/${plan.id}/document`, {
      base_version: 1,
      settings: { session_timeout_min: 10, chat_text: 'Bye.', sync_with_voice_text: false, webhook: '' },
      nodes: [planNode('start', 'start'), say('hello', 'Passing you to a person.'), planNode('agent', 'destination', { destination_id: queue.id, timeout_s: 300 }), say('back', 'Back with the bot.')],
      edges: [planEdge('start', 'next', 'hello'), planEdge('hello', 'next', 'agent'), planEdge('agent', 'answer', 'back')],
    }, member.token);
    await b.call('POST', `/visual-plans/${plan.id}/publish`, { base_version: 2 }, member.token);
    number = await b.call<PhoneNumber>('POST', '/numbers', { number: '+551140009001', provider: 'webchat', chat_plan_id: plan.id, webchat_origins: [SITE] }, member.token);
  }, 120_000);

  test('the waiting chat, the customer’s message and the close reach the agent’s stream on A; the agent’s message reaches the widget on B', async () => {
    // The open stream makes the agent online: a chat reaching the queue waits for them.
    const feed = await openEventFeed(`http://127.0.0.1:${a.port}/api/v1/conversations/events`, member.token, (data) => data as ConversationEvent);
    cleanups.push(() => feed.close());
    expect(await a.call<{ status: string }>('GET', '/agents/me', undefined, member.token)).toEqual({ status: 'online' });

    const started = await widget('POST', '/conversations');
    const waiting = await until('the waiting chat on A', () => feed.events.find((event) => event.type === 'conversation.waiting'));
    const id = waiting.conversation_id;
    await a.call('POST', `/conversations/${id}/take`, undefined, member.token);

    // The visitor types on B: the agent's console on A is told.
    const typed = await request(b.agent, b.port, 'POST', `/api/v1/webchat/${number.webchat_key}/conversations/${started.conversation_id}/typing`, {}, undefined, { origin: SITE });
    expect(typed.status, typed.body).toBe(204);
    await until('the customer’s typing on A', () => feed.events.find((event) => event.type === 'conversation.customer_typing' && event.conversation_id === id));

    await widget('POST', `/conversations/${started.conversation_id}/messages`, { id: 'c1', text: 'Hello from the visitor on B' });
    const heard = await until('the customer’s message on A', () => feed.events.find((event) => event.type === 'conversation.message' && event.message.author === 'customer'));
    expect(heard).toMatchObject({ conversation_id: id, message: { text: 'Hello from the visitor on B' } });

    const shown = await widget('GET', `/conversations/${started.conversation_id}`);
    const polled = widget('GET', `/conversations/${started.conversation_id}?after=${shown.revision}&wait=25`);
    await a.call('POST', `/conversations/${id}/messages`, { text: 'Hello from the agent on A' }, member.token);
    const woken = await polled;
    expect(woken.messages.at(-1)).toMatchObject({ from: 'agent', text: 'Hello from the agent on A', agent_name: 'conv-instances' });

    await a.call('POST', `/conversations/${id}/close`, { outcome: 'back_to_plan' }, member.token);
    await until('the close on A', () => feed.events.find((event) => event.type === 'conversation.closed' && event.conversation_id === id));
    await until('the plan’s reply on B', async () => ((await widget('GET', `/conversations/${started.conversation_id}`)).messages.some((message) => message.text === 'Back with the bot.') ? true : undefined));

    // The console closes: the agent goes offline.
    feed.close();
    await until('the agent offline', async () => ((await a.call<{ status: string }>('GET', '/agents/me', undefined, member.token)).status === 'offline' ? true : undefined));
  });
});
