/**
 * An agent's presence follows their console's conversations stream (docs/conversations.md,
 * "Presence"): online while one is open, offline when the last one closes; but a stream the server
 * ends because its token expired leaves the agent online, since the console opens it again with a
 * fresh token (a chat arriving in between would otherwise take `busy`), unless no console comes back
 * within the grace.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { conversationStreamTiming } from '../src/modules/conversations/conversations.routes.ts';
import { setPresence } from '../src/modules/conversations/presence.ts';
import { createTenantMember, shortLivedToken, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { openEventFeed } from './live-feed.ts';

let server: TestServer;
let member: TenantMember;
let eventsUrl: string;

beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  eventsUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}/api/v1/conversations/events`;
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'presence');
});
afterAll(() => server.close());
const timing = { ...conversationStreamTiming };
afterEach(() => Object.assign(conversationStreamTiming, timing));

const presence = async () => (await server.call({ method: 'GET', url: '/agents/me', token: member.token })).json<{ status: string }>().status;

test('a stream ended by its token’s expiry keeps its agent online; a console that goes away makes them offline', async () => {
  const expiring = await openEventFeed(eventsUrl, shortLivedToken(server.ctx, member.token, 2), (data) => data as { type: string });
  expect(await presence()).toBe('online');
  await expiring.ended;
  expect(expiring.comments).toContain('closed token_expired');
  // No other stream is open now: only the expiry's leniency keeps the agent online.
  expect(await presence()).toBe('online');

  // The console comes back with a fresh token, then its tab closes.
  const again = await openEventFeed(eventsUrl, member.token, (data) => data as { type: string });
  expect(await presence()).toBe('online');
  again.close();
  await expect.poll(presence).toBe('offline');
});

/** A console's stream ended by its token's expiry, the grace after it shortened to 1 s. */
async function streamEndedByItsToken(): Promise<void> {
  conversationStreamTiming.reconnectGraceMs = 1_000;
  const expiring = await openEventFeed(eventsUrl, shortLivedToken(server.ctx, member.token, 2), (data) => data as { type: string });
  expect(await presence()).toBe('online');
  await expiring.ended;
}
const pastTheGrace = () => new Promise((resolve) => setTimeout(resolve, 3 * conversationStreamTiming.reconnectGraceMs));

test('a console whose stream’s token expired and that does not come back within the grace (its tab closed just then): its agent goes offline', async () => {
  await streamEndedByItsToken();
  await expect.poll(presence).toBe('offline');
});

test('a console that comes back within the grace keeps its agent online after it', async () => {
  await streamEndedByItsToken();
  const again = await openEventFeed(eventsUrl, member.token, (data) => data as { type: string });
  await pastTheGrace();
  expect(await presence()).toBe('online');
  again.close();
  await expect.poll(presence).toBe('offline');
});

test('a console that comes back on another instance within the grace keeps its agent online after it', async () => {
  await streamEndedByItsToken();
  // What the console's new stream does on the instance it reached: this one never sees that stream.
  await setPresence(server.ctx, member.userId, member.tenantId, 'online');
  await pastTheGrace();
  expect(await presence()).toBe('online');
});
