import { describe, expect, it } from 'vitest';
import { activeFilterCount, campaignReportsLink, noReportFilters, reportFiltersOf, reportWhere } from './report-filter.ts';

describe('the reports filters as a where clause', () => {
  it('lists everything but test sessions when nothing is set', () => {
    expect(reportWhere(noReportFilters)).toBeUndefined();
    expect(activeFilterCount(noReportFilters)).toBe(0);
  });

  it('takes the period in local days, the last one whole', () => {
    const where = reportWhere({ ...noReportFilters, from: '2026-11-01', to: '2026-11-03' });
    expect(where).toEqual({ start_time: { gte: new Date(2026, 10, 1).toISOString(), lt: new Date(2026, 10, 4).toISOString() } });
    expect(reportWhere({ ...noReportFilters, to: '2026-12-31' })).toEqual({ start_time: { lt: new Date(2027, 0, 1).toISOString() } });
  });

  it('joins every filter set, numbers as parts and lists as any of', () => {
    const filters = {
      ...noReportFilters,
      planIds: ['3', '7'],
      called: ' 3000 ',
      caller: '50%',
      directions: ['inbound'],
      dialStatuses: ['busy', 'no_answer'],
      dispositions: ['routed'],
      hangupCauses: ['caller_hangup'],
      agentIds: ['12'],
      queueIds: ['4', '5'],
      campaignIds: ['9'],
    };
    expect(reportWhere(filters)).toEqual({
      and: [
        { plan_id: { inq: [3, 7] } },
        { called: { like: '%3000%' } },
        { caller: { like: '%50\\%%' } },
        { direction: { inq: ['inbound'] } },
        { dial_status: { inq: ['busy', 'no_answer'] } },
        { disposition: { inq: ['routed'] } },
        { hangup_cause: { inq: ['caller_hangup'] } },
        { agent_id: { inq: [12] } },
        { queue_id: { inq: [4, 5] } },
        { campaign_id: { inq: [9] } },
      ],
    });
    expect(activeFilterCount(filters)).toBe(10);
  });

  it('names is_test to bring the test sessions in with the others', () => {
    expect(reportWhere({ ...noReportFilters, showTest: true })).toEqual({ is_test: { inq: [true, false] } });
  });

  it("a campaign's link opens the reports of its calls; a bad id in the link is ignored", () => {
    const link = new URL(campaignReportsLink(42), 'http://console');
    expect(link.pathname).toBe('/reports');
    const filters = reportFiltersOf(link.searchParams);
    expect(reportWhere(filters)).toEqual({ campaign_id: { inq: [42] } });
    expect(reportFiltersOf(new URLSearchParams('campaign=1;drop')).campaignIds).toEqual([]);
  });
});
