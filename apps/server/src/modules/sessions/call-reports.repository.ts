/**
 * A session's report as stored (`call_reports`) and as /reports answers it: the
 * values a report is written with, the row presented back, and the report of one session. The
 * end of a session writes it with its last turn (storeEnd, sessions.repository.ts).
 */
import type { CallReportRecord } from '@voxplan/contracts';
import type { CallReport, Channel, DialStatus, Direction, Disposition, HangupCause, Provider } from '@voxplan/engine';
import type { Insertable, Kysely, Selectable } from 'kysely';
import { prepareQuery } from '../../db/prepared.ts';
import type { CallReportPlanTable, CallReportTable, Database } from '../../db/schema.ts';
import { rollUpReport } from '../../db/stats-rollups.ts';

export type StoredReport = CallReportRecord;

/** The contracts repeat the engine's value lists for the console; this fails to compile if they part. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const reportListsAgree: [
  Same<StoredReport['channel'], Channel>,
  Same<StoredReport['provider'], Provider>,
  Same<StoredReport['direction'], Direction>,
  Same<StoredReport['disposition'], Disposition | null>,
  Same<StoredReport['dial_status'], DialStatus | null>,
  Same<StoredReport['hangup_cause'], HangupCause | null>,
] = [true, true, true, true, true, true];

export const json = (value: unknown): string => JSON.stringify(value);
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function reportValues(report: CallReport, isTest: boolean, now: string) {
  const ended = report.ended_at ?? now;
  return {
    tenant_id: report.tenant_id,
    session_id: report.session_id,
    plan_id: report.plan_id,
    plan_name: report.plan_name,
    plan_version: report.plan_version,
    channel: report.channel,
    provider: report.provider,
    direction: report.direction,
    caller: report.caller,
    called: report.called,
    source_ip: report.source_ip,
    protocol: report.protocol,
    last_node_plan_id: report.last_node?.plan_id ?? null,
    last_node_id: report.last_node?.node_id ?? null,
    last_node_type: report.last_node?.type ?? null,
    nodes: json(report.nodes),
    pressed_digits: json(report.pressed_digits),
    hangup_cause: report.hangup_cause,
    disposition: report.disposition,
    dial_status: report.dial_status,
    failure: report.failure === null ? null : json(report.failure),
    recording: report.recording === null ? null : json(report.recording),
    variables: json(report.variables),
    is_test: isTest ? 1 : 0,
    start_time: report.started_at,
    end_time: ended,
    duration_s: report.duration_s ?? 0,
    goal: report.goal,
    updated_time: now,
  } satisfies Omit<Insertable<CallReportTable>, 'created_time'>;
}

/** What the report's JSON columns hold. */
type ReportJson = Pick<StoredReport, 'nodes' | 'pressed_digits' | 'failure' | 'recording' | 'variables'>;

const storedJson = (row: Pick<Selectable<CallReportTable>, 'nodes' | 'pressed_digits' | 'failure' | 'recording' | 'variables'>): ReportJson => ({
  nodes: parsed<StoredReport['nodes']>(row.nodes) ?? [],
  pressed_digits: parsed<StoredReport['pressed_digits']>(row.pressed_digits) ?? [],
  failure: parsed<StoredReport['failure']>(row.failure),
  recording: parsed<StoredReport['recording']>(row.recording),
  variables: parsed<StoredReport['variables']>(row.variables) ?? {},
});

/**
 * The report as /reports answers it. `json`: the values the JSON columns were written from, when
 * the row was just stored, so that they need not be parsed back.
 */
export function presentReport(
  row: Omit<Selectable<CallReportTable>, 'campaign_id'> & { campaign_id?: number | null },
  json: ReportJson = storedJson(row),
): StoredReport {
  return {
    ...row,
    // A report is written before its call's campaign is set on it (modules/outbound-calls).
    campaign_id: row.campaign_id ?? null,
    channel: row.channel as StoredReport['channel'],
    provider: row.provider as StoredReport['provider'],
    direction: row.direction as StoredReport['direction'],
    hangup_cause: row.hangup_cause as StoredReport['hangup_cause'],
    disposition: row.disposition as StoredReport['disposition'],
    dial_status: row.dial_status as StoredReport['dial_status'],
    nodes: json.nodes,
    pressed_digits: json.pressed_digits,
    failure: json.failure,
    recording: json.recording,
    variables: json.variables,
    is_test: row.is_test === 1,
  };
}

type ReportValues = ReturnType<typeof reportValues>;

const insertReportRow = prepareQuery<ReportValues & { created_time: string }, Pick<Selectable<CallReportTable>, 'id' | 'created_time'>>((db, values) =>
  db
    .insertInto('call_reports')
    .values(values)
    .onConflict((oc) => oc.column('session_id').doNothing())
    .returning(['id', 'created_time']),
);

export const updateReportRow = prepareQuery<ReportValues, Pick<Selectable<CallReportTable>, 'id' | 'created_time'>>((db, { session_id, ...values }) =>
  db.updateTable('call_reports').set(values).where('session_id', '=', session_id).returning(['id', 'created_time']),
);

/**
 * THE report writer: stores the report of a session that ended, or replaces it when it comes again
 * (a recording's analysis completed after the end): one row per session. The first store also
 * adds the session to the statistics' rollups (db/stats-rollups.ts), in the caller's
 * transaction, unless it is a test session; a replacement does not count it again. Whatever ends
 * a session (a turn, the retention job closing a voice session whose end never came) writes its
 * report here, so that the statistics count it.
 *
 * The answer is the report as /reports will read it, built from what was written rather than
 * read back: only the id and the first store's time come from the row.
 */
export async function saveReport(trx: Kysely<Database>, report: CallReport, isTest: boolean, now: string): Promise<StoredReport> {
  const values = reportValues(report, isTest, now);
  // Inserted, or there already: told apart by the insert's answer, which a single upsert's is not on SQLite.
  let row = (await insertReportRow(trx, { ...values, created_time: now })).rows[0];
  if (row) {
    if (!isTest) await rollUpReport(trx, report);
  } else {
    row = (await updateReportRow(trx, values)).rows[0];
  }
  if (!row) throw new Error(`the report of session ${report.session_id} was not stored`);
  await saveCalledPlans(trx, row.id, report, isTest);
  return presentReport({ id: row.id, ...values, created_time: row.created_time }, report);
}

/** The rows of `call_report_plans` a report is kept with: one per plan it called; none for a test session, which no result counts. */
export function calledPlanRows(report: CallReport, isTest: boolean): Array<Omit<CallReportPlanTable, 'report_id'>> {
  if (isTest || !report.called_plans) return [];
  return report.called_plans.map(({ plan_id, plan_version, goal }) => ({ tenant_id: report.tenant_id, plan_id, plan_version, start_time: report.started_at, goal }));
}

/**
 * The plans a report's session entered through `call_plan` (migration 0042), replacing any kept
 * with an earlier store of the report, so that a re-saved report is not counted twice. A session
 * that called no plan writes nothing (and had nothing kept: a report is re-saved with its path).
 */
export async function saveCalledPlans(db: Kysely<Database>, reportId: number, report: CallReport, isTest: boolean): Promise<void> {
  const rows = calledPlanRows(report, isTest);
  if (rows.length === 0) return;
  await db.deleteFrom('call_report_plans').where('report_id', '=', reportId).execute();
  await db
    .insertInto('call_report_plans')
    .values(rows.map((row) => ({ report_id: reportId, ...row })))
    .execute();
}

/** The stored report of a session, as /reports answers it; undefined until the session ended. */
export async function findReport(db: Kysely<Database>, sessionId: string): Promise<StoredReport | undefined> {
  const row = await db.selectFrom('call_reports').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
  return row && presentReport(row);
}
