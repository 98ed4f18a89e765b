/**
 * The reports screen's filters (period, plan, numbers, value lists, a chat's agent and queue, test sessions) as the API's
 * where clause: the table lists with it and the CSV export sends the same one, so the file holds
 * what the table shows.
 */
import { escapeLike } from '../../lib/table/where.ts';
import { dayStart } from '../dashboard/period.ts';

export interface ReportFilters {
  /** First day of the period, `YYYY-MM-DD` in the browser's zone; empty: no start. */
  from: string;
  /** Last day of the period, included whole; empty: no end. */
  to: string;
  planIds: string[];
  /** Part of the called number. */
  called: string;
  /** Part of the caller's number or id. */
  caller: string;
  directions: string[];
  dialStatuses: string[];
  dispositions: string[];
  hangupCauses: string[];
  /** A chat's agent and queue: its last hand-off's (docs/api.md, "Reports"). */
  agentIds: string[];
  queueIds: string[];
  /** The campaigns whose calls they were (issue 38). */
  campaignIds: string[];
  /** Test sessions (the simulator's) listed with the others. */
  showTest: boolean;
}

export const noReportFilters: ReportFilters = {
  from: '',
  to: '',
  planIds: [],
  called: '',
  caller: '',
  directions: [],
  dialStatuses: [],
  dispositions: [],
  hangupCauses: [],
  agentIds: [],
  queueIds: [],
  campaignIds: [],
  showTest: false,
};

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

/** Local midnight of a `YYYY-MM-DD` day, `days` later, as an ISO instant (the user means days on their own clock). */
function localMidnight(day: string, days = 0): string | undefined {
  if (!dayPattern.test(day)) return undefined;
  const start = dayStart(day);
  start.setDate(start.getDate() + days);
  return start.toISOString();
}

/** The where clause of the filters; undefined when nothing narrows the list. */
export function reportWhere(filters: ReportFilters): Record<string, unknown> | undefined {
  const clauses: Record<string, unknown>[] = [];
  const from = localMidnight(filters.from);
  // The last day is included whole: up to, not including, the next day's midnight.
  const to = localMidnight(filters.to, 1);
  if (from || to) clauses.push({ start_time: { ...(from && { gte: from }), ...(to && { lt: to }) } });
  if (filters.planIds.length > 0) clauses.push({ plan_id: { inq: filters.planIds.map(Number) } });
  const called = filters.called.trim();
  if (called) clauses.push({ called: { like: `%${escapeLike(called)}%` } });
  const caller = filters.caller.trim();
  if (caller) clauses.push({ caller: { like: `%${escapeLike(caller)}%` } });
  const lists: Array<[string, string[]]> = [
    ['direction', filters.directions],
    ['dial_status', filters.dialStatuses],
    ['disposition', filters.dispositions],
    ['hangup_cause', filters.hangupCauses],
  ];
  for (const [field, values] of lists) if (values.length > 0) clauses.push({ [field]: { inq: values } });
  if (filters.agentIds.length > 0) clauses.push({ agent_id: { inq: filters.agentIds.map(Number) } });
  if (filters.queueIds.length > 0) clauses.push({ queue_id: { inq: filters.queueIds.map(Number) } });
  if (filters.campaignIds.length > 0) clauses.push({ campaign_id: { inq: filters.campaignIds.map(Number) } });
  // The API leaves test sessions out unless the where clause names is_test (docs/api.md, "Reports").
  if (filters.showTest) clauses.push({ is_test: { inq: [true, false] } });
  if (clauses.length === 0) return undefined;
  return clauses.length === 1 ? clauses[0] : { and: clauses };
}

/** The test sessions among what `where` selects (which, naming no is_test, leaves them out). */
export function testCallsWhere(where: Record<string, unknown> | undefined): Record<string, unknown> {
  return where ? { and: [where, { is_test: true }] } : { is_test: true };
}

/**
 * The filters a link to the screen asks for (`?tests=1&from=YYYY-MM-DD&to=YYYY-MM-DD`): the
 * dashboard sends its period there, test sessions shown; a campaign its calls (`?campaign=<id>`).
 */
export function reportFiltersOf(search: URLSearchParams): ReportFilters {
  const day = (name: string) => {
    const value = search.get(name) ?? '';
    return dayPattern.test(value) ? value : '';
  };
  const campaign = search.get('campaign') ?? '';
  return { ...noReportFilters, from: day('from'), to: day('to'), showTest: search.get('tests') === '1', campaignIds: /^[1-9]\d{0,9}$/.test(campaign) ? [campaign] : [] };
}

/** The link to the reports of a period's days (`to` the last day, included), test sessions shown. */
export function testReportsLink(from: string, to: string): string {
  return `/reports?${new URLSearchParams({ tests: '1', from, to }).toString()}`;
}

/** The link to a campaign's calls. */
export function campaignReportsLink(campaignId: number): string {
  return `/reports?${new URLSearchParams({ campaign: String(campaignId) }).toString()}`;
}

/** How many filters narrow the list (the badge on the filters' toggle). */
export function activeFilterCount(filters: ReportFilters): number {
  return (
    Number(Boolean(filters.from || filters.to)) +
    Number(filters.planIds.length > 0) +
    Number(Boolean(filters.called.trim())) +
    Number(Boolean(filters.caller.trim())) +
    Number(filters.directions.length > 0) +
    Number(filters.dialStatuses.length > 0) +
    Number(filters.dispositions.length > 0) +
    Number(filters.hangupCauses.length > 0) +
    Number(filters.agentIds.length > 0) +
    Number(filters.queueIds.length > 0) +
    Number(filters.campaignIds.length > 0) +
    Number(filters.showTest)
  );
}
