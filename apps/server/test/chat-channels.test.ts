import type { CallReportRecord } from '@voxplan/contracts';
import type { Provider } from '@voxplan/engine';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import type { ChatDelivery } from '../src/modules/sessions/chat-channels.ts';
import { createSessionRuntime, type SessionRuntime } from '../src/modules/sessions/sessions.service.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { storePlan } from './sessions-helpers.ts';

/**
 * Idle chats (issue 16, item 4): a chat idle past its plan's `session_timeout_min` is ended by the
 * chat sweeper, and the plan's `chat_text` reaches the user on the channel the chat came from,
 * through the chat sender of its provider's channel (channels/registry.ts); two instances sweeping
 * at once send it once.
 */

let server: TestServer;
let member: TenantMember;
let scripts: LuaScriptRunner;
let other: SessionRuntime;
let planId: number;
const sent: Array<{ provider: Provider; delivery: ChatDelivery }> = [];

const chatPlan = {
  name: 'Idle chats',
  settings: { session_timeout_min: 15, chat_text: 'This chat was closed for inactivity.', sync_with_voice_text: false, webhook: '' },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1.', chat_text: 'Type 1 for sales.', options: [{ digits: '1', label: 'Sales' }] } },
  ],
  edges: [{ id: 'e1', source: 'start', source_exit: 'next', target: 'menu' }],
};

async function startChat(id: string, provider: Provider): Promise<void> {
  await server.ctx.sessions.start({ id, tenant_id: member.tenantId, plan_id: planId, channel: 'chat', provider, caller: `user-of-${id}`, called: 'our-number' });
}

/** The chat's timeout passed: what the plan's 15 minutes of silence would have done. */
async function makeIdle(ids: string[]): Promise<void> {
  await server.ctx.db.updateTable('sessions').set({ timeout_time: '2000-01-01T00:00:00.000Z' }).where('id', 'in', ids).execute();
}

async function reportOf(sessionId: string): Promise<CallReportRecord | undefined> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>()[0];
}

beforeAll(async () => {
  server = await startTestServer();
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'idle-chats');
  planId = await storePlan(server.ctx, member.tenantId, chatPlan);
  // A second instance on the same database: its own runtime, and so its own sweeper.
  scripts = new LuaScriptRunner({ workers: 1 });
  other = createSessionRuntime(server.ctx, { scripts });
  // The app's registry is its own, and the second runtime's too (it runs on the same context): nothing to put back.
  for (const provider of ['webchat', 'whatsapp'] as const) {
    server.ctx.channels.replaceChat(provider, {
      turn: async (_ctx, delivery) => {
        sent.push({ provider, delivery });
        await Promise.resolve();
      },
    });
  }
});

afterAll(async () => {
  await other.close();
  await scripts.close();
  await server.close();
});

describe('a chat idle past its plan\'s timeout', () => {
  test("ends with the plan's chat_text, sent on the channel it came from", async () => {
    await startChat('idle-web', 'webchat');
    await startChat('idle-wa', 'whatsapp');
    await startChat('still-talking', 'webchat');
    await makeIdle(['idle-web', 'idle-wa']);

    expect((await server.ctx.sessions.sweepTimeouts()).sort()).toEqual(['idle-wa', 'idle-web']);
    const byProvider = sent.map(({ provider, delivery }) => [provider, delivery.session.id, delivery.session.caller, delivery.outcome.actions]);
    const lastWords = [
      { type: 'reply', text: 'This chat was closed for inactivity.' },
      { type: 'hangup', cause: 'session_timeout' },
    ];
    expect(byProvider.sort()).toEqual([
      ['webchat', 'idle-web', 'user-of-idle-web', lastWords],
      ['whatsapp', 'idle-wa', 'user-of-idle-wa', lastWords],
    ]);
    expect(sent.every(({ delivery }) => delivery.event_id.startsWith('timeout:') && delivery.session.status === 'ended')).toBe(true);

    expect(await reportOf('idle-web')).toMatchObject({ channel: 'chat', provider: 'webchat', hangup_cause: 'session_timeout', disposition: 'abandoned' });
    expect((await server.ctx.sessions.find('still-talking'))?.session.status).toBe('waiting');
    sent.length = 0;
  });

  test('swept by two instances at once, is ended and told once', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `idle-pair-${i}`);
    for (const [i, id] of ids.entries()) await startChat(id, i % 2 === 0 ? 'webchat' : 'whatsapp');
    await makeIdle(ids);

    const [here, there] = await Promise.all([server.ctx.sessions.sweepTimeouts(), other.sweepTimeouts()]);
    expect([...here, ...there].sort()).toEqual([...ids].sort());
    expect(sent.map(({ delivery }) => delivery.session.id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await reportOf(id))?.hangup_cause).toBe('session_timeout');
    // Nothing is left for either to send again.
    expect(await Promise.all([server.ctx.sessions.sweepTimeouts(), other.sweepTimeouts()])).toEqual([[], []]);
    expect(sent).toHaveLength(ids.length);
  });
});
