import { attachmentLimits, type ConversationMessage } from '@voxplan/contracts';
import { providers } from '@voxplan/engine';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.ts';
import type { Channel, CustomerAddress } from '../src/channels/channel.ts';
import { type ChannelRegistry, createChannelRegistry } from '../src/channels/registry.ts';
import { deliverToCustomer } from '../src/modules/conversations/customer-router.ts';
import { createTenantMember, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { storePlan } from './sessions-helpers.ts';

/**
 * The channels' registry (docs/sessions.md, "Channels") is what the app is made of: every provider
 * has its entry, the app mounts the routes its registry lists (and only those), and a person's
 * message reaches the customer through the chat channel's own sender, as that channel's limits say.
 */

let server: TestServer;
let member: TenantMember;
let planId: number;

const chatPlan = {
  name: 'Registry chats',
  settings: { session_timeout_min: 15, chat_text: '', sync_with_voice_text: false, webhook: '' },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1.', chat_text: 'Type 1 for sales.', options: [{ digits: '1', label: 'Sales' }] } },
  ],
  edges: [{ id: 'e1', source: 'start', source_exit: 'next', target: 'menu' }],
};

/** `size`: an uploaded file's; null for a link the person gave. */
const agentMessage = (text: string, size: number | null = null): ConversationMessage => ({
  id: 1,
  conversation_id: 1,
  author: 'agent',
  agent: { id: 1, name: 'Ana' },
  text,
  attachment: { url: 'https://files.example/invoice.pdf', content_type: 'application/pdf', name: 'invoice.pdf', size },
  template: null,
  created_at: new Date().toISOString(),
});

beforeAll(async () => {
  server = await startTestServer();
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'channels-registry');
  planId = await storePlan(server.ctx, member.tenantId, chatPlan);
});

afterAll(() => server.close());

describe('the channels registry', () => {
  test('every provider the engine knows has a channel with its way in, its renderer and its limits, and every chat channel a sender', () => {
    const registry = createChannelRegistry();
    expect(registry.all().map((channel) => channel.provider).sort()).toEqual([...providers].sort());
    for (const provider of providers) {
      const channel = registry.get(provider)!;
      expect(channel.routes ?? channel.listen, provider).toBeTypeOf('function');
      expect(channel.render, provider).toBeTypeOf('function');
      expect(channel.limits, provider).toBeDefined();
      if (channel.sessions.includes('chat')) expect(channel.chat?.turn, provider).toBeTypeOf('function');
    }
  });

  test('the app mounts the routes of the channels its registry lists, and no others', async () => {
    const twilio = createChannelRegistry().get('twilio')!;
    const probe = async (api: FastifyInstance) => {
      api.get('/hooks/probe', { schema: { hide: true } }, async () => ({ mounted: true }));
      await Promise.resolve();
    };
    const app = await buildApp({ ...server.ctx, channels: createChannelRegistry([{ ...twilio, routes: probe }]) }, { logger: false });
    try {
      const mounted = await app.inject({ method: 'GET', url: '/api/v1/hooks/probe' });
      expect(mounted.statusCode).toBe(200);
      expect(mounted.json()).toEqual({ mounted: true });
      // Twilio's own webhook is not mounted: this registry's Twilio has the probe's routes instead.
      const voiceHook = { method: 'POST' as const, url: '/api/v1/hooks/twilio/voice', payload: 'CallSid=CA1', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      const unmounted = await app.inject(voiceHook);
      expect(unmounted.statusCode).toBe(404);
      // The full registry's app has Twilio's webhook (it refuses an unsigned request), and no probe.
      expect((await server.app.inject(voiceHook)).statusCode).not.toBe(404);
      expect((await server.app.inject({ method: 'GET', url: '/api/v1/hooks/probe' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  test("a person's message goes through the chat channel's sender: an uploaded file as a file where the channel carries files, else (and a link given) as its link", async () => {
    const sessionId = 'registry-chat-1';
    await server.ctx.sessions.start({ id: sessionId, tenant_id: member.tenantId, plan_id: planId, channel: 'chat', provider: 'webchat', caller: 'visitor-1', called: 'widget-number' });
    const sent: Array<{ to: CustomerAddress; text: string; file: string | null }> = [];
    const standIn = (attachments: Channel['limits']['attachments']): ChannelRegistry => {
      const webchat = createChannelRegistry().get('webchat')!;
      return createChannelRegistry([
        {
          ...webchat,
          limits: { ...webchat.limits, attachments },
          chat: {
            ...webchat.chat!,
            message: async (_ctx, to, message) => {
              sent.push({ to, text: message.text, file: message.attachment?.name ?? null });
              return Promise.resolve({ ok: false, reason: 'stand_in_refused' });
            },
          },
        },
      ]);
    };
    const conversation = { tenant_id: member.tenantId, session_id: sessionId, provider: 'webchat', caller: 'visitor-1' };
    const to = { tenant_id: member.tenantId, session_id: sessionId, caller: 'visitor-1', called: 'widget-number' };
    const carriesFiles = standIn(attachmentLimits.webchat!);

    expect(await deliverToCustomer({ ...server.ctx, channels: carriesFiles }, conversation, agentMessage('Here is your invoice.', 1024))).toBe('stand_in_refused');
    expect(await deliverToCustomer({ ...server.ctx, channels: carriesFiles }, conversation, agentMessage('See this.'))).toBe('stand_in_refused');
    expect(await deliverToCustomer({ ...server.ctx, channels: standIn([]) }, conversation, agentMessage('Here is your invoice.', 1024))).toBe('stand_in_refused');
    expect(sent).toEqual([
      { to, text: 'Here is your invoice.', file: 'invoice.pdf' },
      { to, text: 'See this.\nhttps://files.example/invoice.pdf', file: null },
      { to, text: 'Here is your invoice.\nhttps://files.example/invoice.pdf', file: null },
    ]);
    // The app's own web chat pushes nothing: its widget reads the message in its poll.
    expect(await deliverToCustomer(server.ctx, conversation, agentMessage('Hello.'))).toBeNull();
  });

});
