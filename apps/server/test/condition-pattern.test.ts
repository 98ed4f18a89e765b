import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTenantMember, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { connectSimulator, describeFrames } from './simulator-client.ts';

/**
 * Issue 13, item 1: a `matches` pattern that passes every save-time check held the server's one
 * thread for 5.6 s on a 151-character chat message (a backtracking engine), and every tenant's
 * requests waited. Through a real server: the longest text the block reads answers at once, and
 * /health is answered while chats send it.
 */

let server: TestServer;
let baseUrl: string;
let member: TenantMember;
let planId: number;

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  member = await createTenantMember(server, await server.login(), 'patterns');
  const created = await server.call({ method: 'POST', url: '/visual-plans', token: member.token, payload: { name: 'Digits only' } });
  expect(created.statusCode, created.body).toBe(201);
  planId = created.json<{ id: number }>().id;
  const saved = await server.call({
    method: 'PUT',
    url: `/visual-plans/${planId}/document`,
    token: member.token,
    payload: {
      base_version: 1,
      nodes: [
        node('start', 'start'),
        // The chat's message is the menu's invalid answer; the condition reads it.
        node('ask', 'voice_menu', { voice_text: 'Your number?', options: [{ digits: '9', label: 'Nine' }], max_retries: 0 }),
        node('check', 'condition', { rules: [{ left: '{{last_input}}', op: 'matches', right: '^\\d*\\d*\\d*\\d*\\d*$' }] }),
        node('yes', 'play_message', { voice_text: 'digits', chat_text: 'digits' }),
        node('no', 'play_message', { voice_text: 'not digits', chat_text: 'not digits' }),
      ],
      edges: [edge('start', 'next', 'ask'), edge('ask', 'invalid', 'check'), edge('check', 'true', 'yes'), edge('check', 'false', 'no')],
    },
  });
  expect(saved.statusCode, saved.body).toBe(200);
});

afterAll(() => server.close());

/** One chat that sends `text` and answers with what the condition decided. */
async function chat(text: string): Promise<string | undefined> {
  const client = await connectSimulator(baseUrl, planId, member.token);
  await client.turn({ type: 'start', channel: 'chat' });
  const frames = describeFrames(await client.turn({ type: 'message', id: 'm1', text }));
  await client.close();
  return frames.find((frame) => frame.startsWith('exit check '))?.slice('exit check '.length);
}

test('a pattern with stacked repetitions against the 2,000 characters the block reads answers at once, and /health is answered meanwhile', async () => {
  const hostile = `${'1'.repeat(1_999)}x`;
  const startedAt = performance.now();
  const healthTimes: number[] = [];
  const health = async () => {
    const asked = performance.now();
    const response = await fetch(`${baseUrl}/api/v1/health`);
    healthTimes.push(performance.now() - asked);
    return response.status;
  };
  const [decisions, statuses] = await Promise.all([Promise.all(Array.from({ length: 5 }, () => chat(hostile))), Promise.all(Array.from({ length: 5 }, health))]);
  expect(decisions).toEqual(Array(5).fill('false'));
  expect(statuses).toEqual(Array(5).fill(200));
  // Generous bounds for a shared machine: a backtracking engine needs hours for one such chat.
  expect(performance.now() - startedAt).toBeLessThan(5_000);
  expect(Math.max(...healthTimes)).toBeLessThan(2_000);
  expect(await chat('1'.repeat(2_000))).toBe('true');
});
