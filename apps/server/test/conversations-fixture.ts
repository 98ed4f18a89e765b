/** What the conversations' two test files share: a server with a tenant, its agents (a member, a colleague, a guest), a stranger tenant, two chat queues and a web chat number; the widget's and the API's calls. */
import type { Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, expect } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, createTenantUser, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { webchatVisitor } from './webchat-visitor.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';

export const SITE = 'https://shop.example.com';

export let server: TestServer;
export let admin: string;
export let member: TenantMember;
export let colleague: TenantMember;
export let guest: TenantMember;
export let stranger: TenantMember;
export let queue: Destination;
export let otherQueue: Destination;
export let number: PhoneNumber;

/** Greets, hands the chat to the destination; each exit says which it was. */
export const queuePlan = (destinationId: number) => ({ name: 'Front desk', ...handOffPlan(destinationId, { timeoutS: 120, onAnswer: 'Welcome back to the bot.' }) });

export const { widget, view } = webchatVisitor(() => server, () => number.webchat_key!, SITE);

export const texts = (conversation: WebchatConversation) => conversation.messages.map((message) => `${message.from}${message.agent_name ? `(${message.agent_name})` : ''}: ${message.text}`);
export const api = (token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

export async function startChat(): Promise<string> {
  const started = await widget('POST', '/conversations');
  expect(started.statusCode, started.body).toBe(200);
  return started.json<WebchatConversation>().conversation_id;
}

/** The conversation the chat's hand-off made (it follows the turn that reached the block). */
export const conversationOf = (sessionId: string) =>
  until(`the conversation of ${sessionId}`, () => server.ctx.db.selectFrom('conversations').selectAll().where('session_id', '=', sessionId).orderBy('id', 'desc').executeTakeFirst());

/** The widget's view once it shows `text`. */
export const widgetShows = (sessionId: string, text: string) => until(`the widget to show ${text}`, async () => {
  const current = await view(sessionId);
  return current.messages.some((message) => message.text === text) ? current : undefined;
});

/** Starts the server with a tenant, its agents, two chat queues and a web chat number before the file's tests; closes it after them. */
export function useConversationsServer(): void {
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
}

export const setPresence = async (token: string, status: 'online' | 'away' | 'offline') => expect((await api(token, 'PUT', '/agents/me', { status })).statusCode).toBe(200);
