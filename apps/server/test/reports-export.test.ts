import type { CallReportRecord } from '@voxplan/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { seedReports } from './report-seeding.ts';
import { insertReport } from './sessions-helpers.ts';

/**
 * GET /reports/export.csv (issue 17): the filtered reports as CSV, streamed by keyset pages, with
 * the same where clause, tenant and test-session rules as GET /reports.
 */

const SEEDED = 100_000;
let server: TestServer;
let admin: string;
let a: TenantMember;
let b: TenantMember;
let tricky: CallReportRecord;

/** RFC 4180 records: quoted cells may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += char;
  }
  return records;
}

/** The file as rows of objects by header. */
function rowsOf(response: LightMyRequestResponse): Array<Record<string, string>> {
  const [header, ...records] = parseCsv(response.body);
  return records.map((record) => Object.fromEntries(header!.map((name, index) => [name, record[index]!])));
}

const exportCsv = (token: string, filter?: unknown, tenant?: number) =>
  server.call({ method: 'GET', url: `/reports/export.csv${filter === undefined ? '' : `?${q('filter', filter)}`}`, token, ...(tenant !== undefined && { tenant }) });

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  a = await createTenantMember(server, admin, 'export-a');
  b = await createTenantMember(server, admin, 'export-b');
  await seedReports(server.ctx.db, server.ctx.dialect, { tenantId: a.tenantId, count: SEEDED, newest: '2026-11-20T00:00:00.000Z', prefix: 'a' });
  await seedReports(server.ctx.db, server.ctx.dialect, { tenantId: a.tenantId, count: 7, newest: '2026-11-20T00:00:00.000Z', prefix: 'a-sim', isTest: true });
  await seedReports(server.ctx.db, server.ctx.dialect, { tenantId: b.tenantId, count: 30, newest: '2026-11-20T00:00:00.000Z', prefix: 'b' });
  // Newer than every seeded row: the first line of a's export.
  tricky = await insertReport(server.ctx, a.tenantId, {
    sessionId: 'a-tricky',
    startedAt: '2026-11-21T09:00:00.000Z',
    session: {
      plan_name: 'Sales, "North"\nline two',
      caller: '=HYPERLINK("http://evil.example","click")',
      called: '+551130000000',
      disposition: 'routed',
      dial_status: 'answer',
      path: [
        { plan_id: 7, node_id: 'start', type: 'start', at: '2026-11-21T09:00:00.000Z', exit: 'next' },
        { plan_id: 7, node_id: 'menu', type: 'voice_menu', at: '2026-11-21T09:00:01.000Z', exit: '1' },
        { plan_id: 7, node_id: 'sales', type: 'destination', at: '2026-11-21T09:00:09.000Z', exit: null },
      ],
      digits: [
        { plan_id: 7, node_id: 'menu', digits: '9', at: '2026-11-21T09:00:03.000Z' },
        { plan_id: 7, node_id: 'menu', digits: '1', at: '2026-11-21T09:00:08.000Z' },
      ],
    },
  });
}, 120_000);
afterAll(() => server.close());

describe('the whole set', () => {
  test("100,000 rows and more: a tenant's reports, newest first, counted in X-Total-Count, without test sessions", async () => {
    const response = await exportCsv(a.token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="reports-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers['x-total-count']).toBe(String(SEEDED + 1));
    expect(response.headers['x-accel-buffering']).toBe('no');
    const rows = rowsOf(response);
    expect(rows).toHaveLength(SEEDED + 1);
    expect(new Set(rows.map((row) => row.session_id)).size).toBe(SEEDED + 1);
    expect(rows.every((row) => row.tenant_id === String(a.tenantId) && row.is_test === 'false')).toBe(true);
    const starts = rows.map((row) => row.start_time!);
    expect(starts).toEqual([...starts].sort().reverse());
    expect(rows.slice(0, 3).map((row) => row.session_id)).toEqual(['a-tricky', 'a-1', 'a-2']);
    expect(rows.at(-1)!.session_id).toBe(`a-${SEEDED}`);
  }, 120_000);

  test('a few rows say what /reports says of them', async () => {
    const rows = rowsOf(await exportCsv(a.token, { where: { session_id: { inq: ['a-tricky', 'a-1', 'a-99999'] } } }));
    const listed = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: { inq: ['a-1', 'a-99999'] } } })}`, token: a.token });
    for (const report of [tricky, ...listed.json<CallReportRecord[]>()]) {
      const row = rows.find((candidate) => candidate.session_id === report.session_id)!;
      expect(row).toMatchObject({
        id: String(report.id),
        plan_name: report.plan_name,
        called: report.called,
        channel: report.channel,
        disposition: report.disposition ?? '',
        hangup_cause: report.hangup_cause ?? '',
        dial_status: report.dial_status ?? '',
        start_time: report.start_time,
        end_time: report.end_time,
        duration_s: String(report.duration_s),
        last_node_id: report.last_node_id ?? '',
      });
    }
    const trickyRow = rows.find((row) => row.session_id === 'a-tricky')!;
    // Commas, quotes and a line break survive the quoting; the formula is made text.
    expect(trickyRow.plan_name).toBe('Sales, "North"\nline two');
    expect(trickyRow.caller).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(trickyRow.called).toBe('+551130000000');
    expect(trickyRow.nodes).toBe('start [next] > menu [1] > sales');
    expect(trickyRow.pressed_digits).toBe('menu: 9; menu: 1');
    expect(trickyRow.duration_s).toBe('65');
    expect(rows.find((row) => row.session_id === 'a-99999')).toMatchObject({ caller: '+5511900099999', pressed_digits: 'menu: 9', nodes: 'start [next] > menu' });
  });
});

describe('the filter', () => {
  test('its where clause selects the rows, as /reports/count counts them', async () => {
    const where = { disposition: 'routed', channel: 'voice', start_time: { gte: '2026-11-19T12:00:00.000Z' } };
    const counted = await server.call({ method: 'GET', url: `/reports/count?${q('where', where)}`, token: a.token });
    const expected = counted.json<{ count: number }>().count;
    expect(expected).toBeGreaterThan(1000);
    const response = await exportCsv(a.token, { where, order: ['id ASC'], limit: 5 });
    expect(response.headers['x-total-count']).toBe(String(expected));
    const rows = rowsOf(response);
    expect(rows).toHaveLength(expected);
    expect(rows.every((row) => row.disposition === 'routed' && row.channel === 'voice' && row.start_time! >= '2026-11-19T12:00:00.000Z')).toBe(true);
  });

  test('test sessions when it names is_test', async () => {
    const response = await exportCsv(a.token, { where: { is_test: true } });
    expect(rowsOf(response).map((row) => row.session_id)).toEqual(Array.from({ length: 7 }, (_, i) => `a-sim-${i + 1}`));
  });

  test('nothing selected: the header alone', async () => {
    const response = await exportCsv(a.token, { where: { caller: 'nobody' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-total-count']).toBe('0');
    expect(parseCsv(response.body)).toHaveLength(1);
    expect(parseCsv(response.body)[0]).toContain('session_id');
  });

  test('a bad filter answers 400 in the error shape, before any CSV', async () => {
    for (const filter of ['{not json', JSON.stringify({ where: { no_such_field: 1 } }), JSON.stringify({ where: { duration_s: { gt: 'long' } } })]) {
      const response = await server.call({ method: 'GET', url: `/reports/export.csv?filter=${encodeURIComponent(filter)}`, token: a.token });
      expect(response.statusCode, filter).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(errorOf(response)).toMatchObject({ statusCode: 400, code: 'invalid_filter' });
    }
  });
});

describe('tenants', () => {
  test("another tenant's member gets their own rows only; the administrator any tenant's, or every tenant's", async () => {
    const ofB = rowsOf(await exportCsv(b.token));
    expect(ofB).toHaveLength(30);
    expect(new Set(ofB.map((row) => row.tenant_id))).toEqual(new Set([String(b.tenantId)]));
    expect((await exportCsv(b.token, { where: { session_id: 'a-tricky' } })).headers['x-total-count']).toBe('0');
    expect((await exportCsv(admin, undefined, b.tenantId)).headers['x-total-count']).toBe('30');
    expect((await exportCsv(admin, { where: { session_id: { inq: ['a-1', 'b-1'] } } })).headers['x-total-count']).toBe('2');
  });

  test('signed out: 401', async () => {
    const response = await server.call({ method: 'GET', url: '/reports/export.csv' });
    expect(response.statusCode).toBe(401);
  });
});
