import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import type { SimulatorServerFrame } from '@voxplan/contracts/simulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { connectSimulator, describeFrames } from './simulator-client.ts';

/**
 * The simulator's outbound call (issue 38, "Simulator"; docs/simulator.md, "An outbound call"):
 * the tester types the number and plays the callee. Answered by a person or a machine, the plan
 * runs with `answered_by` set and reports `direction: outbound`; busy or unanswered, the test
 * ends at once with that dial status and a report, the plan never run.
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
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'reminders');
  // The tenant's country reads a number typed without its country code, as the outbound call API does.
  await server.ctx.db.updateTable('tenants').set({ country: 'BR' }).where('id', '=', member.tenantId).execute();
  const created = await server.call({ method: 'POST', url: '/visual-plans', token: member.token, payload: { name: 'Payment reminder' } });
  expect(created.statusCode, created.body).toBe(201);
  planId = created.json<{ id: number }>().id;
  // A reminder as a person builds it: a condition on answered_by sends a machine to a short message.
  const saved = await server.call({
    method: 'PUT',
    url: `/visual-plans/${planId}/document`,
    token: member.token,
    payload: {
      base_version: 1,
      nodes: [
        node('start', 'start'),
        node('who', 'condition', { rules: [{ left: '{{answered_by}}', op: 'eq', right: 'machine' }] }),
        node('voicemail', 'play_message', { voice_text: 'Please call us back about your invoice.' }),
        node('menu', 'voice_menu', { voice_text: 'Hello {{name}}, press 1 to pay now.', options: [{ digits: '1', label: 'Pay' }] }),
      ],
      edges: [edge('start', 'next', 'who'), edge('who', 'true', 'voicemail'), edge('who', 'false', 'menu')],
    },
  });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(() => server.close());

const open = () => connectSimulator(baseUrl, planId, member.token);
const endedOf = (frames: SimulatorServerFrame[]) => frames.find((frame) => frame.type === 'ended')?.report;

async function storedReport(sessionId: string): Promise<CallReportRecord | undefined> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId, is_test: true } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>()[0];
}

describe('an outbound test call', () => {
  test('answered by a person: the plan runs with answered_by human, and the report says outbound, answered', async () => {
    const client = await open();
    const frames = await client.turn({ type: 'start', channel: 'voice', variables: { name: 'Ana' }, outbound: { to: '(11) 91234-5678', callee: 'human' } });
    expect(frames[0]).toMatchObject({ type: 'started', channel: 'voice', outbound: { to: '+5511912345678', callee: 'human' } });
    expect(describeFrames(frames).slice(1)).toEqual(['node start', 'exit start next', 'node who', 'exit who false', 'node menu', 'say Hello Ana, press 1 to pay now.', 'gather', 'turn waiting']);
    const sessionId = frames.find((frame) => frame.type === 'started')!.session_id as string;
    expect((await server.ctx.sessions.find(sessionId))!.session).toMatchObject({ direction: 'outbound', called: '+5511912345678', variables: { name: 'Ana', answered_by: 'human' } });

    const hungUp = await client.turn({ type: 'hangup', id: 'h1' });
    expect(endedOf(hungUp)).toMatchObject({ session_id: sessionId, direction: 'outbound', called: '+5511912345678', is_test: true, variables: { answered_by: 'human' } });
    expect(await storedReport(sessionId)).toMatchObject({ direction: 'outbound', variables: { answered_by: 'human' } });
    await client.close();
  });

  test('answered by a machine: the condition on answered_by takes the machine branch', async () => {
    const client = await open();
    const frames = await client.turn({ type: 'start', channel: 'voice', outbound: { to: '+5511912345678', callee: 'machine' } });
    expect(describeFrames(frames).slice(1)).toEqual([
      'node start',
      'exit start next',
      'node who',
      'exit who true',
      'node voicemail',
      'say Please call us back about your invoice.',
      'exit voicemail next',
      'hangup normal_clearing',
      'ended retained',
      'turn ended',
    ]);
    expect(endedOf(frames)).toMatchObject({ direction: 'outbound', variables: { answered_by: 'machine' }, last_node_id: 'voicemail' });
    await client.close();
  });

  test.each([
    ['busy', 'busy'],
    ['no_answer', 'no_answer'],
  ] as const)('%s: the test ends at once with that dial status and a report; the plan never runs', async (callee, status) => {
    const client = await open();
    const frames = await client.turn({ type: 'start', channel: 'voice', outbound: { to: '+5511912345678', callee } });
    expect(frames.map((frame) => frame.type)).toEqual(['started', 'ended', 'turn']);
    expect(frames[0]).toMatchObject({ outbound: { to: '+5511912345678', callee } });
    expect(frames.at(-1)).toMatchObject({ type: 'turn', status: 'ended' });
    const report = endedOf(frames)!;
    expect(report).toMatchObject({ direction: 'outbound', dial_status: status, disposition: 'missed', hangup_cause: callee === 'busy' ? 'busy' : null, provider: 'simulator', called: '+5511912345678', is_test: true, nodes: [], last_node_id: null });
    expect(report.variables.answered_by).toBeUndefined();
    expect(await storedReport(report.session_id)).toMatchObject({ id: report.id, direction: 'outbound', dial_status: status });
    // Nothing waits: an input after it has no session.
    client.send({ type: 'digits', id: 'late', digits: '1' });
    expect((await client.waitFor('error')).error).toMatchObject({ statusCode: 404, code: 'session_not_found' });
    await client.close();
  });

  test('a number that is none, one on the do-not-call list, or an outbound chat, is refused with the field named, and no session starts', async () => {
    const sessions = () => server.ctx.db.selectFrom('sessions').select('id').where('plan_id', '=', planId).execute();
    const before = (await sessions()).length;
    const client = await open();
    const badNumber = await client.turn({ type: 'start', channel: 'voice', outbound: { to: 'call me maybe', callee: 'human' } });
    expect(badNumber).toHaveLength(1);
    expect(badNumber[0]).toMatchObject({ type: 'error', event_id: 'start', error: { statusCode: 400, code: 'invalid_phone_number', details: [{ path: 'outbound.to' }] } });
    const now = new Date().toISOString();
    await server.ctx.db.insertInto('do_not_call').values({ tenant_id: member.tenantId, number: '+5511987654321', created_time: now, updated_time: now }).execute();
    const listed = await client.turn({ type: 'start', channel: 'voice', outbound: { to: '+55 11 98765-4321', callee: 'human' } });
    expect(listed).toMatchObject([{ type: 'error', event_id: 'start', error: { statusCode: 422, code: 'outbound_do_not_call', details: [{ path: 'outbound.to' }] } }]);
    // Refused as a malformed frame: a start has no id to name.
    client.send({ type: 'start', channel: 'chat', outbound: { to: '+5511912345678', callee: 'human' } });
    expect(await client.waitFor('error')).toMatchObject({ event_id: null, error: { statusCode: 400, code: 'invalid_input', details: [{ path: 'outbound' }] } });
    expect(client.frames.some((frame) => frame.type === 'started')).toBe(false);
    expect(await sessions()).toHaveLength(before);
    await client.close();
  });
});
