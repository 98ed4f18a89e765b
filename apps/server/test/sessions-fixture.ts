/**
 * The set-up the session runtime's tests share (sessions*.test.ts): a server with a member's tenant,
 * its destinations, date ranges and fixture plans, a local server standing in for the CRM, Twilio's API
 * and a slow service, and a runtime on a test clock that records its hooks. The bindings are set by
 * useSessionsServer's hooks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { afterAll, beforeAll, expect } from 'vitest';
import { createSessionRuntime, type SessionRuntime, type StartRequest } from '../src/modules/sessions/sessions.service.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, readFixture, recordingEvents, storePlan, testClock } from './sessions-helpers.ts';

export const CALLER = '+5511999990000';
export const CALLED = '+551130000000';
export const SOURCE_IP = '198.51.100.7';

export let server: TestServer;
export let admin: string;
export let member: TenantMember;
export let tenantId: number;
export let scripts: LuaScriptRunner;
export const clock = testClock('2026-11-23T12:00:00.000Z');
export const events = recordingEvents();
export let runtime: SessionRuntime;

/** Plans and records of the tenant. */
export const ids = { salesDesk: 0, salesChat: 0, allDay: 0, neverOpen: 0, selfService: 0, frontDesk: 0, frontDeskClosed: 0, race: 0, drafted: 0 };

/** A local server standing in for the CRM the fixtures call, for Twilio's API, and for a slow service. */
interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let remote: http.Server;
export let remoteUrl: string;
export const received: Received[] = [];
let holdSlow: { promise: Promise<void>; release(): void } | null = null;

export function hold() {
  let release = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  holdSlow = { promise, release };
  return holdSlow;
}

async function answer(request: http.IncomingMessage, response: http.ServerResponse) {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
  const send = (status: number, data: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(data));
  };
  const url = new URL(request.url ?? '/', 'http://local');
  if (url.pathname === '/api/customers') return send(200, { customer: { name: 'Ana', extension: '204' } });
  if (url.pathname === '/api/tier') return send(200, { customer: { tier: 'gold' } });
  if (url.pathname.startsWith('/twilio/')) return send(201, { sid: 'SM0001', status: 'queued' });
  if (url.pathname === '/slow') {
    const held = holdSlow;
    holdSlow = null;
    if (held) await held.promise;
    return send(200, { ok: true });
  }
  send(404, {});
}

export const requestsTo = (pathname: string) => received.filter((request) => new URL(request.url, 'http://local').pathname.startsWith(pathname));

export async function setLoopback(isOpen: boolean) {
  await server.ctx.db.updateTable('configurations').set({ value: String(isOpen) }).where('name', '=', 'outbound_allow_loopback').execute();
}

export const voiceCall = (id: string, planId = ids.frontDesk): StartRequest => ({
  id,
  tenant_id: tenantId,
  plan_id: planId,
  channel: 'voice',
  provider: 'twilio',
  caller: CALLER,
  called: CALLED,
  source_ip: SOURCE_IP,
});
export const chat = (id: string, planId = ids.frontDesk): StartRequest => ({ id, tenant_id: tenantId, plan_id: planId, channel: 'chat', provider: 'webchat', caller: 'visitor-1', called: 'site' });

export async function reportsOf(sessionId: string): Promise<CallReportRecord[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId, is_test: { inq: [true, false] } } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>();
}

export async function storedEvents(sessionId: string) {
  return server.ctx.db.selectFrom('session_events').selectAll().where('session_id', '=', sessionId).orderBy('revision').execute();
}

export const pathOf = (report: CallReportRecord | null) => report?.nodes.map((node) => (node.exit === null ? node.node_id : `${node.node_id}:${node.exit}`));
export const callerLines = async (sessionId: string) => (await runtime.find(sessionId))!.session.transcript.filter((line) => line.from === 'caller').map((line) => line.text);

/** Starts the server, the stand-in remote and the session runtime for the file that calls it. */
export function useSessionsServer(): void {
  beforeAll(async () => {
    // The chats here are web chats whose plans wait 15 minutes: longer than a web chat's own idle cap (5), which has its test in webchat-licence.test.ts.
    server = await startTestServer({ WEBCHAT_IDLE_TIMEOUT: '60' });
    admin = await server.login();
    member = await createTenantMember(server, admin, 'sessions');
    tenantId = member.tenantId;

    remote = http.createServer((request, response) => void answer(request, response));
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    await setLoopback(true);

    const create = async (url: string, payload: Record<string, unknown>) => {
      const response = await server.call({ method: 'POST', url, token: member.token, payload });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: number }>().id;
    };
    ids.salesDesk = await create('/destinations', { name: 'Sales desk', kind: 'voice', uri: 'sip:sales@pbx.acme.example' });
    ids.salesChat = await create('/destinations', { name: 'Sales chat', kind: 'chat', uri: 'https://crm.example/handoff' });
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    ids.allDay = await create('/date-ranges', { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) });
    ids.neverOpen = await create('/date-ranges', { name: 'Never', time_zone: 'UTC', intervals: [] });

    // The fixtures call https://crm.example; here the local server answers for it.
    const selfService = JSON.parse(JSON.stringify(readFixture('self-service')).replaceAll('https://crm.example', remoteUrl)) as FixtureDocument;
    ids.selfService = await storePlan(server.ctx, tenantId, selfService);
    const references = (dateRange: number) => ({
      destination: { 1: ids.salesDesk, 2: ids.salesChat },
      date_range: { 1: dateRange },
      plan: { 102: ids.selfService },
    });
    ids.frontDesk = await storePlan(server.ctx, tenantId, readFixture('front-desk'), { references: references(ids.allDay) });
    ids.frontDeskClosed = await storePlan(server.ctx, tenantId, readFixture('front-desk'), { name: 'Front desk, closed', references: references(ids.neverOpen) });

    scripts = new LuaScriptRunner({ workers: 1 });
    runtime = createSessionRuntime(server.ctx, { scripts, clock, events, messaging: { twilioApiUrl: `${remoteUrl}/twilio` } });
  });

  afterAll(async () => {
    await scripts?.close();
    remote?.closeAllConnections();
    await new Promise((resolve) => remote?.close(resolve));
    await server?.close();
  });
}
