/**
 * What the simulator's tests share (simulator*.test.ts): a listening server whose tenant has a member,
 * a guest and an outsider, a remote that answers only when told, and the front-line, slow, unpublished
 * and office-hours plans. The bindings are set by useSimulatorServer's hooks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import type { SimulatorServerFrame } from '@voxplan/contracts/simulator';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { connectSimulator } from './simulator-client.ts';

export let server: TestServer;
export let baseUrl: string;
export let admin: string;
export let member: TenantMember;
export let guest: TenantMember;
export let outsider: TenantMember;
export let destinationId: number;
export const plans = { frontLine: 0, slow: 0, unpublished: 0, hours: 0 };

/** A remote service whose answer the test releases by hand. */
let remote: http.Server;
export let remoteUrl: string;
export let releaseSlow: (() => void) | null = null;
export let slowRequests = 0;

export const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
export const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

export function frontLine(menuText: string) {
  return {
    settings: { session_timeout_min: 10, chat_text: 'Closing this idle chat.', sync_with_voice_text: false, webhook: '' },
    nodes: [
      node('start', 'start', { hangup_chat_message: 'Thanks for writing.' }),
      node('menu', 'voice_menu', {
        voice_text: menuText,
        chat_text: `${menuText} (chat)`,
        options: [{ digits: '1', label: 'Sales' }],
        max_retries: 1,
        invalid_text: 'Sorry, no such option.',
      }),
      node('sales', 'destination', { destination_id: destinationId }),
      node('bye', 'play_message', { voice_text: 'Goodbye', chat_text: 'Bye!' }),
    ],
    edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'sales'), edge('menu', 'timeout', 'bye'), edge('menu', 'invalid', 'bye'), edge('sales', 'busy', 'bye')],
  };
}

export async function createPlan(token: string, name: string, document: object, publish: boolean): Promise<number> {
  const created = await server.call({ method: 'POST', url: '/visual-plans', token, payload: { name } });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: number }>().id;
  const saved = await server.call({ method: 'PUT', url: `/visual-plans/${id}/document`, token, payload: { base_version: 1, ...document } });
  expect(saved.statusCode, saved.body).toBe(200);
  if (publish) {
    const published = await server.call({ method: 'POST', url: `/visual-plans/${id}/publish`, token, payload: { base_version: 2 } });
    expect(published.statusCode, published.body).toBe(200);
  }
  return id;
}

export async function reportOf(sessionId: string, where: Record<string, unknown> = {}): Promise<CallReportRecord[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId, ...where } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>();
}

export const open = (planId = plans.frontLine, token = member.token, options: Parameters<typeof connectSimulator>[3] = {}) => connectSimulator(baseUrl, planId, token, options);
export const sessionIdOf = (frames: SimulatorServerFrame[]) => frames.find((frame) => frame.type === 'started')!.session_id as string;

/** Starts a listening server, the slow remote, the tenant's users and its plans for the file that calls it. */
export function useSimulatorServer(): void {
  beforeAll(async () => {
    server = await startTestServer();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    admin = await server.login();
    member = await createTenantMember(server, admin, 'simulation');
    outsider = await createTenantMember(server, admin, 'elsewhere');
    const guestUser = await server.call({
      method: 'POST',
      url: '/users',
      token: admin,
      payload: { username: 'sim-guest', password: 'sim-guest-password', email: 'sim-guest@example.com', name: 'Guest', roles: [{ role: 'guest', tenant_id: member.tenantId }] },
    });
    expect(guestUser.statusCode, guestUser.body).toBe(201);
    guest = { ...member, token: await server.login('sim-guest', 'sim-guest-password') };

    remote = http.createServer((request, response) => {
      slowRequests++;
      releaseSlow = () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ customer: 'Ana' }));
      };
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();

    const destination = await server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example.com' } });
    expect(destination.statusCode, destination.body).toBe(201);
    destinationId = destination.json<{ id: number }>().id;

    plans.frontLine = await createPlan(member.token, 'Front line', frontLine('Press 1 for sales.'), true);
    // The draft moves on from the published version.
    const draft = await server.call({ method: 'PUT', url: `/visual-plans/${plans.frontLine}/document`, token: member.token, payload: { base_version: 2, ...frontLine('Press 1 for our sales team.') } });
    expect(draft.statusCode, draft.body).toBe(200);

    plans.slow = await createPlan(
      member.token,
      'Slow lookup',
      {
        nodes: [
          node('start', 'start'),
          node('lookup', 'http_request', { method: 'GET', url: `${remoteUrl}/customer`, save: [{ variable: 'customer', path: '$.customer' }] }),
          node('hello', 'play_message', { voice_text: 'Hello {{customer}}', chat_text: 'Hello {{customer}}' }),
          node('menu', 'voice_menu', { voice_text: 'Press 1', options: [{ digits: '1', label: 'One' }] }),
        ],
        edges: [edge('start', 'next', 'lookup'), edge('lookup', 'success', 'hello'), edge('hello', 'next', 'menu')],
      },
      false,
    );
    plans.unpublished = await createPlan(member.token, 'Never published', frontLine('Draft only.'), false);

    // Open on Tuesdays 09:00 to 17:00 UTC only.
    const range = await server.call({ method: 'POST', url: '/date-ranges', token: member.token, payload: { name: 'Tuesday hours', time_zone: 'UTC', intervals: [{ day: 'tuesday', start: '09:00', end: '17:00' }] } });
    expect(range.statusCode, range.body).toBe(201);
    const say = (text: string) => ({ voice_text: text, chat_text: text });
    plans.hours = await createPlan(
      member.token,
      'Office hours',
      {
        nodes: [
          node('start', 'start'),
          node('hours', 'date_range', { date_range_id: range.json<{ id: number }>().id }),
          node('open', 'play_message', say('We are open')),
          node('closed', 'play_message', say('We are closed')),
          node('feast', 'play_message', say('Happy holiday')),
        ],
        edges: [edge('start', 'next', 'hours'), edge('hours', 'in_hours', 'open'), edge('hours', 'out_of_hours', 'closed'), edge('hours', 'holiday', 'feast')],
      },
      false,
    );
  });

  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => remote.close(resolve));
  });
}
