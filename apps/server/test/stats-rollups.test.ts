/**
 * The statistics API (issue 17): each tenant reads its own, the rollups made again or written twice,
 * sessions ending together or never, and the periods refused. The figures are in stats.test.ts.
 */
import type { StatsDaily, StatsPlanDetail, StatsPlans, StatsSummary } from '@voxplan/contracts';
import { buildReport, createSession } from '@voxplan/engine';
import { describe, expect, test } from 'vitest';
import { saveReport } from '../src/modules/sessions/call-reports.repository.ts';
import { rebuildStatsRollups } from '../src/db/stats-rollups.ts';
import { dialect, errorOf, expectInvalid } from './harness.ts';
import { a, admin, ALL, b, call, clock, get, period, plans, reportsOf, runtime, server, voice, useStatsServer } from './stats-fixtures.ts';

useStatsServer();

describe('tenants', () => {
  test('each reads its own; the administrator every tenant, or the one X-Tenant-Id names', async () => {
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, b.token)).figures.sessions).toBe(1);
    expect((await get<StatsPlans>(`/stats/plans?${ALL}`, b.token)).plans.map((row) => row.plan_id)).toEqual([plans.other]);
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, admin)).figures.sessions).toBe(8);
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, admin, b.tenantId)).figures.sessions).toBe(1);
    // A member naming another tenant still reads its own.
    expect((await get<StatsSummary>(`/stats/summary?${ALL}`, b.token, a.tenantId)).figures.sessions).toBe(1);
  });
});

describe('the rollups', () => {
  test('made again from the reports (the migration, the benchmark) are the ones the session ends kept', async () => {
    const before = await Promise.all([get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${ALL}`, admin), get<StatsDaily>(`/stats/daily?${ALL}`, admin)]);
    await rebuildStatsRollups(server.ctx.db, dialect);
    const after = await Promise.all([get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${ALL}`, admin), get<StatsDaily>(`/stats/daily?${ALL}`, admin)]);
    expect(after).toEqual(before);
  });

  test("a report stored again (a recording's analysis after the end) is not counted twice", async () => {
    const [report] = await reportsOf(a.token, { plan_id: plans.sub });
    const session = {
      ...createSession({ id: report!.session_id, tenant_id: a.tenantId, plan_id: plans.sub, channel: 'voice', provider: 'twilio', caller: 'x', called: 'y' }, { version: 1, name: 'Stats sub' }, new Date(report!.start_time)),
      status: 'ended' as const,
      ended_at: report!.end_time,
      disposition: 'retained' as const,
      hangup_cause: 'normal_clearing' as const,
      path: report!.nodes,
    };
    const before = await get<StatsSummary>(`/stats/summary?${ALL}`, a.token);
    await saveReport(server.ctx.db, buildReport(session), false, new Date().toISOString());
    expect(await get<StatsSummary>(`/stats/summary?${ALL}`, a.token)).toEqual(before);
  });
});

describe('sessions that end at the same time', () => {
  test('are all counted, on the same rows', async () => {
    const day = period('2026-10-10T00:00:00Z', '2026-10-11T00:00:00Z');
    clock.set('2026-10-10T09:00:00.000Z');
    const requests = Array.from({ length: 12 }, () => voice(a.tenantId, plans.menu));
    await Promise.all(requests.map((request) => runtime.start(request)));
    clock.advance(1);
    await Promise.all(requests.map((request, index) => runtime.handleTurn(request.id!, `${request.id}:1`, { type: 'digits', digits: index % 2 === 0 ? '1' : '2' })));
    clock.advance(1);
    await Promise.all(requests.filter((_, index) => index % 2 === 0).map((request) => runtime.handleTurn(request.id!, `${request.id}:2`, { type: 'hangup' })));
    const detail = await get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${day}`, a.token);
    expect(detail.figures).toMatchObject({ sessions: 12, retained: 6, abandoned: 6 });
    expect(detail.nodes.find((node) => node.node_id === 'desk')).toMatchObject({ entered: 6, ended: 6 });
    expect(detail.digits.map((entry) => [entry.digits, entry.count])).toEqual([
      ['1', 6],
      ['2', 6],
    ]);
  });
});

describe('a call whose end never arrived', () => {
  test('closed by the retention job (the expire event), counts as expired', async () => {
    const day = period('2026-09-05T00:00:00Z', '2026-09-06T00:00:00Z');
    const id = await call('2026-09-05T08:00:00.000Z', voice(a.tenantId, plans.menu));
    clock.set('2026-09-05T14:00:00.000Z');
    const closed = await runtime.handleTurn(id, `${id}:expire`, { type: 'expire', at: '2026-09-05T08:00:30.000Z' });
    expect(closed.report).toMatchObject({ disposition: 'expired' });
    const detail = await get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${day}`, a.token);
    expect(detail.figures).toMatchObject({ sessions: 1, expired: 1, retained: 0, retention_rate: 0 });
    expect(detail.nodes.find((node) => node.node_id === 'menu')).toMatchObject({ entered: 1, ended: 1 });
  });
});

describe('bad periods', () => {
  test('from, to and tz must be well formed', async () => {
    const at = (query: string) => server.call({ method: 'GET', url: `/stats/summary?${query}`, token: a.token });
    expectInvalid(await at('to=2026-11-23T00:00:00Z'), 'querystring.from');
    expectInvalid(await at(period('yesterday', '2026-11-23T00:00:00Z')), 'querystring.from');
    expectInvalid(await at(period('2026-11-20T00:00:00', '2026-11-23T00:00:00Z')), 'querystring.from');
    expectInvalid(await at(`${ALL}&tz=Mars/Olympus`), 'querystring.tz');
    expectInvalid(await at(`${ALL}&plan_id=1,x`), 'querystring.plan_id');
    expectInvalid(await at(`${ALL}&plan_id=0`), 'querystring.plan_id.0');
  });

  test('to must come after from, and the period may span at most 400 days', async () => {
    const backwards = await server.call({ method: 'GET', url: `/stats/daily?${period('2026-11-23T00:00:00Z', '2026-11-23T00:00:00Z')}`, token: a.token });
    expect(backwards.statusCode).toBe(400);
    expect(errorOf(backwards)).toMatchObject({ code: 'stats_period_invalid', message: 'The period must end after it starts.' });
    const long = await server.call({
      method: 'GET',
      url: `/stats/plans?${period('2025-01-01T00:00:00Z', '2026-03-01T00:00:00Z')}`,
      token: a.token,
      headers: { 'accept-language': 'pt-BR' },
    });
    expect(long.statusCode).toBe(400);
    expect(errorOf(long)).toMatchObject({ code: 'stats_period_too_long', message: 'O período pode abranger no máximo 400 dias.' });
  });

  test('the OpenAPI document describes the calls and their query', async () => {
    const document = (await server.call({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string }> } }> }>();
    for (const path of ['/api/v1/stats/summary', '/api/v1/stats/daily', '/api/v1/stats/plans', '/api/v1/stats/plans/{id}']) {
      const names = document.paths[path]?.get?.parameters?.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      expect(names, path).toEqual(expect.arrayContaining(['from', 'to', 'tz']));
    }
  });

  test('signing in is required', async () => {
    expect((await server.call({ method: 'GET', url: `/stats/summary?${ALL}` })).statusCode).toBe(401);
  });
});
