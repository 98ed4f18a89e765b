import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimulatorServerFrame } from '@voxplan/contracts/simulator';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { isValidPlanWebhookSignature } from '../src/modules/plan-webhook/plan-webhook.signature.ts';
import { createTenantMember, metricOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { handOffPlan } from './sessions-helpers.ts';
import { connectSimulator, describeFrames, type SimulatorClient } from './simulator-client.ts';

/**
 * The chat hand-off (issue 16, item 3; docs/handoff.md) through the simulator's chat on a
 * listening server: a destination block on a chat posts the conversation to a local receiver,
 * signed like the plan webhook; the receiver's answer decides the block's exit, which the panel is
 * told as the server's own `simulator:handoff` turn.
 */

interface Received {
  at: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

let server: TestServer;
let baseUrl: string;
let member: TenantMember;
let receiver: http.Server;
let receiverUrl: string;
let received: Received[] = [];
/** How the receiver answers its n-th request (from 0) of the test. */
let respond: (n: number) => { status: number; body?: string } = () => ({ status: 204 });
const plans = { patient: 0, hurried: 0 };



async function createPlan(name: string, document: object): Promise<number> {
  const created = await server.call({ method: 'POST', url: '/visual-plans', token: member.token, payload: { name } });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: number }>().id;
  const saved = await server.call({ method: 'PUT', url: `/visual-plans/${id}/document`, token: member.token, payload: { base_version: 1, ...document } });
  expect(saved.statusCode, saved.body).toBe(200);
  const published = await server.call({ method: 'POST', url: `/visual-plans/${id}/publish`, token: member.token, payload: { base_version: 2 } });
  expect(published.statusCode, published.body).toBe(200);
  return id;
}

const clients: SimulatorClient[] = [];

/** A chat on the plan, typed to until it reaches the destination; answers the client and the session id. */
async function chatUntilHandOff(planId: number): Promise<{ client: SimulatorClient; sessionId: string; frames: SimulatorServerFrame[] }> {
  const client = await connectSimulator(baseUrl, planId, member.token);
  clients.push(client);
  const frames = await client.turn({ type: 'start', channel: 'chat', version: 'published', caller: 'visitor-7', called: 'site-chat' });
  const started = frames.find((frame) => frame.type === 'started');
  return { client, sessionId: started!.type === 'started' ? started!.session_id : '', frames };
}

/** The frames of the server's hand-off turn, once its `turn` frame came. */
async function handOffTurn(client: SimulatorClient): Promise<string[]> {
  await client.waitFor('turn', (frame) => frame.event_id === 'simulator:handoff');
  return describeFrames(client.frames.filter((frame) => 'event_id' in frame && frame.event_id === 'simulator:handoff'));
}

beforeAll(async () => {
  server = await startTestServer();
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'handoff');

  receiver = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const answer = respond(received.length);
      received.push({ at: Date.now(), body, headers: request.headers });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/handoff`;
  // Loopback is closed by default; the receiver lives on 127.0.0.1.
  await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();

  // The API takes only https URLs for chat destinations; the local receiver speaks plain http, so
  // the row is written as the API would have, with the receiver's address.
  const now = new Date().toISOString();
  const { id: destinationId } = await server.ctx.db
    .insertInto('destinations')
    .values({ tenant_id: member.tenantId, name: 'Support desk', kind: 'chat', uri: receiverUrl, description: '', created_time: now, updated_time: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  plans.patient = await createPlan('Hand-off, patient', handOffPlan(destinationId, { timeoutS: 30, onAnswer: 'Connected.' }));
  plans.hurried = await createPlan('Hand-off, 3 s', handOffPlan(destinationId, { timeoutS: 3, onAnswer: 'Connected.' }));
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  received = [];
  respond = () => ({ status: 204 });
});

afterAll(async () => {
  await server.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('the hand-off request', () => {
  test('carries the conversation, signed with the tenant webhook secret as docs/webhooks.md tells a receiver to check', async () => {
    const { client, sessionId, frames } = await chatUntilHandOff(plans.patient);
    // The chat is told it is being passed on, and waits at the destination.
    const shown = describeFrames(frames);
    expect(shown).toContain('reply Hello! Passing you to a person.');
    expect(shown.slice(-3)).toEqual(['node agent', `dial ${receiverUrl}`, 'turn waiting']);
    expect(await handOffTurn(client)).toContain('exit agent answer');

    expect(received).toHaveLength(1);
    const [request] = received;
    const secret = (await server.call({ method: 'GET', url: '/webhook-secret', token: member.token })).json<{ secret: string }>().secret;
    const signed = { body: request!.body, timestamp: request!.headers['x-voxplan-timestamp'] as string, signature: request!.headers['x-voxplan-signature'] as string };
    expect(isValidPlanWebhookSignature(secret, signed)).toBe(true);
    // Another secret, or a body changed on the way, fails the check.
    expect(isValidPlanWebhookSignature(`${secret}x`, signed)).toBe(false);
    expect(isValidPlanWebhookSignature(secret, { ...signed, body: signed.body.replace('visitor-7', 'visitor-8') })).toBe(false);

    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Voxplan-Handoff/1', 'x-voxplan-event': 'chat.handoff' });
    const body = JSON.parse(request!.body) as Record<string, unknown>;
    expect(request!.headers['x-voxplan-delivery']).toBe(body.id);
    expect(body).toMatchObject({
      event: 'chat.handoff',
      tenant_id: member.tenantId,
      plan_id: plans.patient,
      data: {
        session_id: sessionId,
        is_test: true,
        channel: 'chat',
        provider: 'simulator',
        caller: 'visitor-7',
        called: 'site-chat',
        plan: { id: plans.patient, version: 2, name: 'Hand-off, patient' },
        destination: { name: 'Support desk' },
        timeout_s: 30,
        variables: { topic: 'billing' },
      },
    });
    const data = body.data as { transcript: Array<{ from: string; text: string }> };
    expect(data.transcript.map((line) => [line.from, line.text])).toEqual([['plan', 'Hello! Passing you to a person.']]);
  });
});

describe("the receiver's answer decides the exit", () => {
  const cases: Array<{ answer: { status: number; body?: string }; exit: string; says: string }> = [
    { answer: { status: 204 }, exit: 'answer', says: 'Connected.' },
    { answer: { status: 200, body: '{"status":"answer","agent":"Rita"}' }, exit: 'answer', says: 'Connected.' },
    { answer: { status: 200, body: '{"status":"busy"}' }, exit: 'busy', says: 'Everyone is busy.' },
    { answer: { status: 202, body: '{"status":"no_answer"}' }, exit: 'no_answer', says: 'Nobody answered.' },
    { answer: { status: 200, body: '{"status":"failed"}' }, exit: 'failed', says: 'The hand-off failed.' },
    { answer: { status: 200, body: '{"status":"maybe"}' }, exit: 'failed', says: 'The hand-off failed.' },
    { answer: { status: 404, body: 'no such queue' }, exit: 'failed', says: 'The hand-off failed.' },
  ];
  test.each(cases)('HTTP $answer.status $answer.body: $exit', async ({ answer, exit, says }) => {
    respond = () => answer;
    const { client, sessionId } = await chatUntilHandOff(plans.patient);
    const turn = await handOffTurn(client);
    expect(turn.slice(0, 3)).toEqual([`exit agent ${exit}`, `node on_${exit}`, `reply ${says}`]);
    // A refusal or an answer the receiver got wrong is not tried again.
    expect(received).toHaveLength(1);
    const stored = await server.ctx.sessions.find(sessionId);
    expect(stored?.session.path.find((entry) => entry.node_id === 'agent')?.exit).toBe(exit);
  });
});

describe('a receiver that does not answer', () => {
  test('is tried again with growing waits, and the chat goes on once it answers', async () => {
    respond = (n) => (n < 2 ? { status: 503, body: 'starting up' } : { status: 200, body: '{"status":"busy"}' });
    const busy = () => metricOf(server, 'voxplan_handoff_deliveries_total{result="busy"}');
    const before = await busy();
    const { client } = await chatUntilHandOff(plans.hurried);
    expect((await handOffTurn(client))[0]).toBe('exit agent busy');
    expect(received).toHaveLength(3);
    // GET /metrics counts the delivery once, by the exit it took, not its attempts.
    expect(await busy()).toBe(before + 1);
    // Every attempt is the same delivery, signed anew.
    expect(new Set(received.map((request) => request.body)).size).toBe(1);
    expect(new Set(received.map((request) => request.headers['x-voxplan-delivery'])).size).toBe(1);
    const [first, second, third] = received.map((request) => request.at);
    expect(second! - first!).toBeGreaterThanOrEqual(300);
    expect(third! - second!).toBeGreaterThan(second! - first!);
  });

  test("takes the failed exit once the block's timeout_s has run out", async () => {
    respond = () => ({ status: 503 });
    const failed = () => metricOf(server, 'voxplan_handoff_deliveries_total{result="failed"}');
    const before = await failed();
    const { client } = await chatUntilHandOff(plans.hurried);
    const began = Date.now();
    expect((await handOffTurn(client)).slice(0, 3)).toEqual(['exit agent failed', 'node on_failed', 'reply The hand-off failed.']);
    // The turn ends at the block's 3 seconds, not when the retries would; the 2 s above it are a
    // loaded machine's margin, not the product's.
    expect(Date.now() - began).toBeLessThan(5000);
    expect(await failed()).toBe(before + 1);
    expect(received.length).toBeGreaterThanOrEqual(2);
    // No attempt after the block's 3 seconds.
    expect(received.at(-1)!.at - received[0]!.at).toBeLessThan(3000);
  });

  test('a chat closed while the hand-off is retried stays closed', async () => {
    respond = () => ({ status: 503 });
    const { client, sessionId } = await chatUntilHandOff(plans.hurried);
    await client.turn({ type: 'hangup', id: 'bye' });
    await expect.poll(() => received.length).toBeGreaterThanOrEqual(2);
    // Past the block's timeout the hand-off answers `failed`, which no longer applies.
    await new Promise((resolve) => setTimeout(resolve, 3200));
    const stored = await server.ctx.sessions.find(sessionId);
    expect(stored?.session).toMatchObject({ status: 'ended', hangup_cause: 'caller_hangup' });
    expect(stored?.session.path.at(-1)).toMatchObject({ node_id: 'agent', exit: null });
  });
});
