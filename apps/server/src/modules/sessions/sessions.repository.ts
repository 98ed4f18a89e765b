import type { CallReportRecord } from '@voxplan/contracts';
import type { Action, CallReport, Channel, DialStatus, Direction, Disposition, HangupCause, PathEntry, Provider, Session, SessionStatus } from '@voxplan/engine';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { CallReportTable, Database, SessionTable } from '../../db/schema.ts';

export type SessionRow = Selectable<SessionTable>;
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

/** What a turn answered, kept with its event so the same event delivered again gets it back. */
export interface StoredOutcome {
  revision: number;
  status: SessionStatus;
  actions: Action[];
  /** The block the turn resumed from, with the exit it then took; null for the first turn or when it stayed. */
  resumed: PathEntry | null;
  /** Blocks entered in the turn, in order. */
  entered: PathEntry[];
  /** The session could not use the event; nothing changed but the revision. */
  ignored: boolean;
}

export function findSession(db: Kysely<Database>, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findEventOutcome(db: Kysely<Database>, sessionId: string, eventId: string): Promise<StoredOutcome | undefined> {
  const row = await db
    .selectFrom('session_events')
    .select('outcome')
    .where('session_id', '=', sessionId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row && (JSON.parse(row.outcome) as StoredOutcome);
}

/** The session's facts the sessions table copies into columns, for queries. */
const copiedFacts = ['id', 'tenant_id', 'plan_id', 'plan_version', 'channel', 'provider', 'direction', 'caller', 'called', 'source_ip'] as const;

export function sessionColumns(session: Session): Pick<Session, (typeof copiedFacts)[number]> {
  return Object.fromEntries(copiedFacts.map((key) => [key, session[key]])) as Pick<Session, (typeof copiedFacts)[number]>;
}

export async function insertSession(trx: Kysely<Database>, values: Insertable<SessionTable>): Promise<void> {
  await trx.insertInto('sessions').values(values).execute();
}

/** Writes the turn only over the revision it read; false when another turn got there first. */
export async function updateSessionAtRevision(
  trx: Kysely<Database>,
  id: string,
  revision: number,
  values: Updateable<SessionTable>,
): Promise<boolean> {
  const result = await trx.updateTable('sessions').set(values).where('id', '=', id).where('revision', '=', revision).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertEvent(trx: Kysely<Database>, sessionId: string, eventId: string, outcome: StoredOutcome, now: string): Promise<void> {
  await trx
    .insertInto('session_events')
    .values({ session_id: sessionId, event_id: eventId, revision: outcome.revision, outcome: JSON.stringify(outcome), created_time: now })
    .execute();
}

const json = (value: unknown): string => JSON.stringify(value);
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function reportValues(report: CallReport, isTest: boolean, now: string): Omit<Insertable<CallReportTable>, 'created_time'> {
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
    updated_time: now,
  };
}

/** The report as /reports answers it. */
export function presentReport(row: Selectable<CallReportTable>): StoredReport {
  return {
    ...row,
    channel: row.channel as StoredReport['channel'],
    provider: row.provider as StoredReport['provider'],
    direction: row.direction as StoredReport['direction'],
    hangup_cause: row.hangup_cause as StoredReport['hangup_cause'],
    disposition: row.disposition as StoredReport['disposition'],
    dial_status: row.dial_status as StoredReport['dial_status'],
    nodes: parsed<StoredReport['nodes']>(row.nodes) ?? [],
    pressed_digits: parsed<StoredReport['pressed_digits']>(row.pressed_digits) ?? [],
    failure: parsed<StoredReport['failure']>(row.failure),
    recording: parsed<StoredReport['recording']>(row.recording),
    variables: parsed<StoredReport['variables']>(row.variables) ?? {},
    is_test: row.is_test === 1,
  };
}

/**
 * Stores the report of a session that ended, or replaces it when it comes again (a recording's
 * analysis completed after the end): one row per session.
 */
export async function saveReport(trx: Kysely<Database>, report: CallReport, isTest: boolean, now: string): Promise<StoredReport> {
  const values = reportValues(report, isTest, now);
  const row = await trx
    .insertInto('call_reports')
    .values({ ...values, created_time: now })
    .onConflict((oc) => oc.column('session_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentReport(row);
}

/** Chats waiting past their timeout, oldest first. */
export function dueChatSessions(db: Kysely<Database>, now: string, limit: number): Promise<Array<Pick<SessionRow, 'id' | 'revision' | 'timeout_time'>>> {
  return db
    .selectFrom('sessions')
    .select(['id', 'revision', 'timeout_time'])
    .where('status', '=', 'waiting')
    .where('timeout_time', '<=', now)
    .orderBy('timeout_time')
    .limit(limit)
    .execute();
}

/**
 * Takes a due timeout for this instance: moves it to `leaseUntil` if the session is still at the
 * revision and timeout that were read. Another sweeper then finds nothing due; if this instance
 * dies before ending the chat, the timeout is due again at `leaseUntil`.
 */
export async function claimTimeout(db: Kysely<Database>, id: string, revision: number, timeoutTime: string, leaseUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ timeout_time: leaseUntil })
    .where('id', '=', id)
    .where('revision', '=', revision)
    .where('status', '=', 'waiting')
    .where('timeout_time', '=', timeoutTime)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function parseSession(row: SessionRow): Session {
  return JSON.parse(row.state) as Session;
}
