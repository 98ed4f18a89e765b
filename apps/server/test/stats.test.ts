/**
 * The statistics API (issue 17) against sessions run through the real turn runner, so the rollups
 * are the ones session ends write: the figures must be those of the reports /reports answers, and
 * of a count made straight over call_reports. Tenants, rollups and refusals: stats-rollups.test.ts.
 */
import type { CallReportRecord, StatsDaily, StatsPlanDetail, StatsPlans, StatsSummary } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { errorOf } from './harness.ts';
import { a, ALL, call, figuresFrom, get, period, plans, reportsOf, server, voice, useStatsServer } from './stats-fixtures.ts';

useStatsServer();

describe('the figures of a period', () => {
  test('are those of the reports of the period, test sessions left out', async () => {
    const reports = await reportsOf(a.token);
    expect(reports).toHaveLength(7);
    const summary = await get<StatsSummary>(`/stats/summary?${ALL}`, a.token);
    expect(summary).toEqual({ from: '2026-11-19T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z', figures: figuresFrom(reports) });
    // What the runs were made to give.
    expect(summary.figures).toMatchObject({ sessions: 7, calls: 6, chats: 1, routed: 2, retained: 3, abandoned: 1, failed: 1, expired: 0 });
    expect(summary.figures.retention_rate).toBeCloseTo(3 / 7);
  });

  test('match a count made straight over call_reports, for any hours of the period', async () => {
    for (const [from, to] of [
      ['2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'],
      ['2026-11-20T12:00:00.000Z', '2026-11-21T15:00:00.000Z'],
      ['2026-11-21T15:00:00.000Z', '2026-11-22T11:00:00.000Z'],
    ] as const) {
      const rows = await server.ctx.db
        .selectFrom('call_reports')
        .select(['disposition', 'channel'])
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('tenant_id', '=', a.tenantId)
        .where('is_test', '=', 0)
        .where('start_time', '>=', from)
        .where('start_time', '<', to)
        .groupBy(['disposition', 'channel'])
        .execute();
      const sum = (keep: (row: (typeof rows)[number]) => boolean) => rows.filter(keep).reduce((total, row) => total + Number(row.n), 0);
      const { figures } = await get<StatsSummary>(`/stats/summary?${period(from, to)}`, a.token);
      expect(figures, `${from} to ${to}`).toMatchObject({
        sessions: sum(() => true),
        calls: sum((row) => row.channel === 'voice'),
        chats: sum((row) => row.channel === 'chat'),
        routed: sum((row) => row.disposition === 'routed'),
        retained: sum((row) => row.disposition === 'retained'),
        abandoned: sum((row) => row.disposition === 'abandoned'),
        failed: sum((row) => row.disposition === 'failed'),
      });
    }
  });

  test('only the plans asked for', async () => {
    const reports = await reportsOf(a.token, { plan_id: { inq: [plans.sub, 999_999] } });
    const summary = await get<StatsSummary>(`/stats/summary?${ALL}&plan_id=${plans.sub},999999`, a.token);
    expect(summary.figures).toEqual(figuresFrom(reports));
    expect(summary.figures).toMatchObject({ sessions: 2, retained: 1, failed: 1 });
  });

  test('an empty period has no rates', async () => {
    const summary = await get<StatsSummary>(`/stats/summary?${period('2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z')}`, a.token);
    expect(summary.figures).toEqual({
      sessions: 0,
      calls: 0,
      chats: 0,
      routed: 0,
      retained: 0,
      abandoned: 0,
      failed: 0,
      expired: 0,
      missed: 0,
      retention_rate: null,
      average_duration_s: null,
    });
  });
});

describe('days', () => {
  test('begin at midnight in the zone asked for, every day of the period listed', async () => {
    const daily = await get<StatsDaily>(`/stats/daily?${period('2026-11-19T03:00:00Z', '2026-11-23T03:00:00Z')}&tz=America/Sao_Paulo`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-19', 1],
      ['2026-11-20', 2],
      ['2026-11-21', 2],
      ['2026-11-22', 2],
    ]);
    const reports = await reportsOf(a.token);
    const onLocalDay = (day: string) => reports.filter((report) => new Date(Date.parse(report.start_time) - 3 * 3_600_000).toISOString().startsWith(day));
    for (const day of daily.days) expect(day.figures, day.day).toEqual(figuresFrom(onLocalDay(day.day)));
  });

  test('in a zone whose offset is not whole hours, from the hour before its midnight', async () => {
    // India is UTC+5:30: its midnight of the 20th is 18:30 UTC on the 19th, its day counted from 18:00.
    const daily = await get<StatsDaily>(`/stats/daily?${period('2026-11-19T18:30:00Z', '2026-11-22T18:30:00Z')}&tz=Asia/Kolkata`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-20', 2],
      ['2026-11-21', 3],
      ['2026-11-22', 2],
    ]);
  });

  test('of 25 hours when the clocks go back', async () => {
    // New York leaves daylight time at 2:00 on 1 November 2026: that day runs from 04:00 to 05:00 UTC the next.
    await call('2026-11-02T04:30:00.000Z', voice(a.tenantId, plans.sub));
    const daily = await get<StatsDaily>(`/stats/daily?${period('2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z')}&tz=America/New_York`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-10-31', 0],
      ['2026-11-01', 1],
      ['2026-11-02', 0],
    ]);
  });

  test('in UTC by default', async () => {
    const daily = await get<StatsDaily>(`/stats/daily?${ALL}`, a.token);
    expect(daily.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-19', 0],
      ['2026-11-20', 2],
      ['2026-11-21', 3],
      ['2026-11-22', 2],
    ]);
    // A period that begins at noon counts its first day from noon.
    const fromNoon = await get<StatsDaily>(`/stats/daily?${period('2026-11-20T12:00:00Z', '2026-11-22T00:00:00Z')}`, a.token);
    expect(fromNoon.days.map((day) => [day.day, day.figures.sessions])).toEqual([
      ['2026-11-20', 1],
      ['2026-11-21', 3],
    ]);
  });
});

describe('per plan', () => {
  test('the plans sessions started in, most sessions first, with their names', async () => {
    const { plans: rows } = await get<StatsPlans>(`/stats/plans?${ALL}`, a.token);
    const reports = await reportsOf(a.token);
    expect(rows.map((row) => [row.plan_id, row.plan_name, row.figures.sessions])).toEqual([
      [plans.menu, 'Stats menu', 5],
      [plans.sub, 'Stats sub', 1],
      [999_999, reports.find((report) => report.plan_id === 999_999)!.plan_name, 1],
    ]);
    for (const row of rows) expect(row.figures).toEqual(figuresFrom(reports.filter((report) => report.plan_id === row.plan_id)));
  });

  /** The plan detail of a period against its reports, counted here block by block. */
  async function expectDetailOfReports(query: string, reports: CallReportRecord[]): Promise<StatsPlanDetail> {
    const detail = await get<StatsPlanDetail>(`/stats/plans/${plans.menu}?${query}`, a.token);
    const entered = new Map<string, number>();
    const ended = new Map<string, number>();
    const digits = new Map<string, number>();
    for (const report of reports) {
      for (const node of report.nodes) entered.set(`${node.plan_id}/${node.node_id}`, (entered.get(`${node.plan_id}/${node.node_id}`) ?? 0) + 1);
      const last = `${report.last_node_plan_id}/${report.last_node_id}`;
      ended.set(last, (ended.get(last) ?? 0) + 1);
      for (const entry of report.pressed_digits) {
        const key = `${entry.plan_id}/${entry.node_id}/${entry.digits}`;
        digits.set(key, (digits.get(key) ?? 0) + 1);
      }
    }
    expect(detail.plan_id).toBe(plans.menu);
    expect(detail.figures).toEqual(figuresFrom(reports));
    expect(Object.fromEntries(detail.nodes.map((node) => [`${node.plan_id}/${node.node_id}`, [node.entered, node.ended]]))).toEqual(
      Object.fromEntries([...entered].map(([key, count]) => [key, [count, ended.get(key) ?? 0]])),
    );
    expect(Object.fromEntries(detail.digits.map((entry) => [`${entry.plan_id}/${entry.node_id}/${entry.digits}`, entry.count]))).toEqual(Object.fromEntries(digits));
    return detail;
  }

  test("a plan's blocks: entered, ended (the drop-off), and keys per menu, as its reports have them", async () => {
    const detail = await expectDetailOfReports(ALL, await reportsOf(a.token, { plan_id: plans.menu }));
    // What the runs were made to give: every session entered the menu; two ended at the desk, two
    // in the sub-plan (its own blocks), one hung up at the menu; 1 pressed twice, 2 twice, 9 once.
    const node = (planId: number, nodeId: string) => detail.nodes.find((entry) => entry.plan_id === planId && entry.node_id === nodeId);
    expect(node(plans.menu, 'menu')).toMatchObject({ entered: 5, ended: 1 });
    expect(node(plans.menu, 'desk')).toMatchObject({ entered: 2, ended: 2 });
    expect(node(plans.sub, 'done')).toMatchObject({ entered: 2, ended: 2 });
    expect(detail.digits.filter((entry) => entry.node_id === 'menu').map((entry) => [entry.digits, entry.count])).toEqual([
      ['1', 2],
      ['2', 2],
      ['9', 1],
    ]);
  });

  test('over whole days and the hours at either end of a period alike', async () => {
    const [from, to] = ['2026-11-20T12:00:00.000Z', '2026-11-22T10:30:00.000Z'];
    const inPeriod = (await reportsOf(a.token, { plan_id: plans.menu })).filter((report) => report.start_time >= from && report.start_time < '2026-11-22T10:00:00.000Z');
    expect(inPeriod).toHaveLength(4);
    await expectDetailOfReports(period(from, to), inPeriod);
  });

  test('a plan of another tenant is not found', async () => {
    const response = await server.call({ method: 'GET', url: `/stats/plans/${plans.other}?${ALL}`, token: a.token });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('not_found');
  });
});
