import type { CallReportRecord } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { insertReport } from './sessions-helpers.ts';

/**
 * /reports (spec section 3, "Call report"): read-only, tenant-scoped, filtered like every
 * resource, and without the simulator's test sessions unless the filter names is_test.
 */

let server: TestServer;
let admin: string;
let a: TenantMember;
let b: TenantMember;
const reports: Record<string, CallReportRecord> = {};

const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T10:00:00.000Z`;
/** The second report's path: a menu, then a destination that answered. */
const routedPath = [
  { plan_id: 7, node_id: 'start', type: 'start', at: at(21), exit: 'next' },
  { plan_id: 7, node_id: 'menu', type: 'voice_menu', at: at(21), exit: '1' },
  { plan_id: 7, node_id: 'sales', type: 'destination', at: at(21), exit: 'answer' },
];

async function list(token: string, filter: unknown, tenant?: number): Promise<string[]> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', filter)}`, token, ...(tenant !== undefined && { tenant }) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>().map((report) => report.session_id);
}

async function count(token: string, where: unknown): Promise<number> {
  const response = await server.call({ method: 'GET', url: `/reports/count?${q('where', where)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ count: number }>().count;
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  a = await createTenantMember(server, admin, 'reports-a');
  b = await createTenantMember(server, admin, 'reports-b');
  reports.a1 = await insertReport(server.ctx, a.tenantId, { sessionId: 'a-1', startedAt: at(20) });
  reports.a2 = await insertReport(server.ctx, a.tenantId, {
    sessionId: 'a-2',
    startedAt: at(21),
    session: {
      disposition: 'routed',
      dial_status: 'answer',
      path: routedPath,
      digits: [{ plan_id: 7, node_id: 'menu', digits: '1', at: at(21) }],
      variables: { tier: 'gold', visits: 2 },
    },
  });
  reports.a3 = await insertReport(server.ctx, a.tenantId, {
    sessionId: 'a-3',
    startedAt: at(22),
    session: { channel: 'chat', provider: 'webchat', disposition: 'abandoned', hangup_cause: 'session_timeout' },
  });
  reports.aTest = await insertReport(server.ctx, a.tenantId, { sessionId: 'a-sim', startedAt: at(23), isTest: true, session: { provider: 'simulator' } });
  reports.b1 = await insertReport(server.ctx, b.tenantId, { sessionId: 'b-1', startedAt: at(24) });
});
afterAll(() => server.close());

describe('what a tenant reads', () => {
  test('its reports, newest first, without test sessions', async () => {
    expect(await list(a.token, {})).toEqual(['a-3', 'a-2', 'a-1']);
    expect(await count(a.token, {})).toBe(3);
  });

  test('test sessions when the where clause names is_test, alone or with the others', async () => {
    expect(await list(a.token, { where: { is_test: true } })).toEqual(['a-sim']);
    expect(await count(a.token, { is_test: true })).toBe(1);
    expect(await list(a.token, { where: { is_test: { inq: [true, false] } } })).toEqual(['a-sim', 'a-3', 'a-2', 'a-1']);
    expect(await list(a.token, { where: { or: [{ is_test: true }, { disposition: 'routed' }] } })).toEqual(['a-sim', 'a-2']);
    expect(await list(a.token, { where: { is_test: false } })).toEqual(['a-3', 'a-2', 'a-1']);
  });

  test('a test report is found by its id', async () => {
    const response = await server.call({ method: 'GET', url: `/reports/${reports.aTest!.id}`, token: a.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ session_id: 'a-sim', is_test: true, provider: 'simulator' });
  });

  test('the report\'s fields, as stored', async () => {
    const response = await server.call({ method: 'GET', url: `/reports/${reports.a2!.id}`, token: a.token });
    expect(response.json()).toEqual({
      id: reports.a2!.id,
      tenant_id: a.tenantId,
      session_id: 'a-2',
      plan_id: 7,
      plan_name: 'Seeded plan',
      plan_version: 1,
      channel: 'voice',
      provider: 'twilio',
      direction: 'inbound',
      // No campaign placed it (docs/outbound.md).
      campaign_id: null,
      caller: '+5511999990000',
      called: '+551130000000',
      source_ip: '198.51.100.7',
      protocol: null,
      last_node_plan_id: 7,
      last_node_id: 'sales',
      last_node_type: 'destination',
      nodes: routedPath,
      pressed_digits: [{ plan_id: 7, node_id: 'menu', digits: '1', at: at(21) }],
      hangup_cause: 'normal_clearing',
      disposition: 'routed',
      dial_status: 'answer',
      failure: null,
      recording: null,
      variables: { tier: 'gold', visits: 2 },
      // It reached no goal block (docs/rollouts.md, "Goals").
      goal: null,
      is_test: false,
      start_time: at(21),
      end_time: '2026-11-21T10:01:05.000Z',
      duration_s: 65,
      created_time: reports.a2!.created_time,
      updated_time: reports.a2!.updated_time,
    });
  });

  test('the report a session ending answers (its ended frame, its webhook) is the one /reports reads', async () => {
    const c = await createTenantMember(server, admin, 'reports-c');
    const failed = await insertReport(server.ctx, c.tenantId, {
      sessionId: 'c-1',
      startedAt: at(19),
      session: {
        disposition: 'failed',
        failure: { code: 'step_limit', message: 'the plan ran 1,000 steps without waiting', plan_id: 7, node_id: 'loop' },
        recording: {
          plan_id: 7,
          node_id: 'rec',
          format: 'mp3',
          analyses: [{ kind: 'summary', max_length: 200 }],
          min_duration_s: 5,
          anonymization: false,
          selected: true,
          status: 'analysed',
          url: 'https://media.example.com/c-1.mp3',
          duration_s: 42,
          results: { summary: 'quer falar com vendas', transcript: [{ from: 'caller', text: 'quero falar com vendas' }] },
          error: null,
        },
        variables: { tier: 'gold', visits: 3, vip: true, note: null, empty: '' },
      },
    });
    const answered = [...[reports.a1!, reports.a2!, reports.a3!, reports.aTest!].map((report) => ({ token: a.token, report })), { token: c.token, report: failed }];
    for (const { token, report: stored } of answered) {
      const response = await server.call({ method: 'GET', url: `/reports/${stored.id}`, token });
      expect(response.json()).toEqual(JSON.parse(JSON.stringify(stored)));
    }
    expect(failed).toMatchObject({ failure: { code: 'step_limit' }, recording: { status: 'analysed', duration_s: 42 } });
  });

  test('filters on the report\'s fields', async () => {
    expect(await list(a.token, { where: { disposition: 'routed' } })).toEqual(['a-2']);
    expect(await list(a.token, { where: { channel: 'chat', hangup_cause: 'session_timeout' } })).toEqual(['a-3']);
    expect(await list(a.token, { where: { start_time: { between: [at(20), at(21)] } } })).toEqual(['a-2', 'a-1']);
    expect(await list(a.token, { where: { last_node_type: 'destination' } })).toEqual(['a-2']);
    expect(await list(a.token, { where: { dial_status: null } })).toEqual(['a-3', 'a-1']);
    expect(await list(a.token, { order: ['start_time ASC'], limit: 2 })).toEqual(['a-1', 'a-2']);
    expect(await count(a.token, { caller: { like: '+5511%' } })).toBe(3);
  });

  test('a field that is not filterable, or an operator that does not fit, is refused', async () => {
    for (const where of [{ nodes: 'x' }, { variables: 'x' }, { is_test: { like: 'x' } }, { duration_s: 'long' }]) {
      const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where })}`, token: a.token });
      expect(response.statusCode, JSON.stringify(where)).toBe(400);
      expect(errorOf(response).code).toBe('invalid_filter');
    }
  });
});

describe('scope and rights', () => {
  test('another tenant\'s reports are out of reach', async () => {
    expect((await server.call({ method: 'GET', url: `/reports/${reports.b1!.id}`, token: a.token })).statusCode).toBe(404);
    expect(await list(a.token, { where: { session_id: 'b-1' } })).toEqual([]);
    expect(await list(b.token, { where: { is_test: { inq: [true, false] } } })).toEqual(['b-1']);
  });

  test('the administrator reads every tenant, or the one named by the header', async () => {
    expect(await list(admin, { where: { session_id: { inq: ['a-1', 'b-1', 'a-sim'] } } })).toEqual(['b-1', 'a-1']);
    expect(await list(admin, {}, b.tenantId)).toEqual(['b-1']);
  });

  test('nobody writes a report', async () => {
    for (const call of [
      { method: 'POST' as const, url: '/reports', payload: {} },
      { method: 'PATCH' as const, url: `/reports/${reports.a1!.id}`, payload: { disposition: 'routed' } },
      { method: 'DELETE' as const, url: `/reports/${reports.a1!.id}` },
    ]) {
      for (const token of [admin, a.token]) {
        const response = await server.call({ ...call, token });
        expect(response.statusCode, `${call.method} ${call.url}`).toBe(404);
      }
    }
    expect(await list(a.token, {})).toEqual(['a-3', 'a-2', 'a-1']);
  });

  test('a tenant with call reports is in use', async () => {
    const created = await server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'reports-only' } });
    const tenantId = created.json<{ id: number }>().id;
    await insertReport(server.ctx, tenantId, { sessionId: 'only-1' });
    const removed = await server.call({ method: 'DELETE', url: `/tenants/${tenantId}`, token: admin });
    expect(removed.statusCode, removed.body).toBe(409);
    expect(errorOf(removed).code).toBe('tenant_in_use');
  });
});
