import type { ChatCustomer } from '@voxplan/contracts';
import type { Action, CallReport, PathEntry, Session, SessionStatus } from '@voxplan/engine';
import { CompiledQuery, type Insertable, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import { executeCompiled, prepareQuery, statementNameOf } from '../../db/prepared.ts';
import type { Database, SessionTable } from '../../db/schema.ts';
import { rollupCtes } from '../../db/stats-rollups.ts';
import { calledPlanRows, presentReport, reportValues, saveCalledPlans, type StoredReport, updateReportRow } from './call-reports.repository.ts';

export type SessionRow = Selectable<SessionTable>;

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

// The statements every turn runs are prepared (db/prepared.ts): building them was a good part of a turn's cost.

const selectSession = prepareQuery<{ id: string }, SessionRow>((db, values) => db.selectFrom('sessions').selectAll().where('id', '=', values.id));

/**
 * Calls and chats under way, the simulator's test sessions left out: a stored session waits for
 * input or has ended. What the licence counts and the dashboard lists (the status index answers it).
 */
export const runningSessions = (db: Kysely<Database>) => db.selectFrom('sessions').where('status', '=', 'waiting').where('is_test', '=', 0);

export async function findSession(db: Kysely<Database>, id: string): Promise<SessionRow | undefined> {
  return (await selectSession(db, { id })).rows[0];
}

const selectSessionTenant = prepareQuery<{ id: string }, Pick<SessionRow, 'tenant_id'>>((db, values) => db.selectFrom('sessions').select('tenant_id').where('id', '=', values.id));

/** The tenant of a stored session, without reading and parsing its state: a channel's webhook needs it to check the request before the turn. */
export async function findSessionTenant(db: Kysely<Database>, id: string): Promise<number | undefined> {
  return (await selectSessionTenant(db, { id })).rows[0]?.tenant_id;
}

const selectEventOutcome = prepareQuery<{ session_id: string; event_id: string }, { outcome: string }>((db, values) =>
  db.selectFrom('session_events').select('outcome').where('session_id', '=', values.session_id).where('event_id', '=', values.event_id),
);

export async function findEventOutcome(db: Kysely<Database>, sessionId: string, eventId: string): Promise<StoredOutcome | undefined> {
  const row = (await selectEventOutcome(db, { session_id: sessionId, event_id: eventId })).rows[0];
  return row && (JSON.parse(row.outcome) as StoredOutcome);
}

/**
 * The running sessions a new one is counted with against the licence's concurrent sessions: a web
 * chat with its tenant's web chats (anyone with a page's public key can open one, so they cannot
 * take a tenant's lines), anything else with every call and chat but the web chats.
 */
const runningCalls = (db: Kysely<Database>) => runningSessions(db).where('provider', '<>', 'webchat');
const runningWebchats = (db: Kysely<Database>, tenantId: number) => runningSessions(db).where('tenant_id', '=', tenantId).where('provider', '=', 'webchat');

type Count = { count: string | number | bigint };
const selectRunningCalls = prepareQuery<Record<string, never>, Count>((db) => runningCalls(db).select((eb) => eb.fn.countAll().as('count')));
const selectRunningWebchats = prepareQuery<{ tenantId: number }, Count>((db, values) => runningWebchats(db, values.tenantId).select((eb) => eb.fn.countAll().as('count')));

const countOf = (result: { rows: Count[] }) => Number(result.rows[0]?.count ?? 0);

/** The calls and chats the licence counts together: every running session but the web chats. */
export async function countRunningCalls(db: Kysely<Database>): Promise<number> {
  return countOf(await selectRunningCalls(db, {}));
}

/** How many running sessions `session` would be counted with by the licence (itself not included). */
export async function countRunningLike(db: Kysely<Database>, session: { tenant_id: number; provider: string }): Promise<number> {
  return session.provider === 'webchat' ? countOf(await selectRunningWebchats(db, { tenantId: session.tenant_id })) : countRunningCalls(db);
}

// A start's two questions (did this id start before? how many sessions run beside it?) in one
// round trip: on PostgreSQL each statement is one, and a call makes some twenty.
type StartCheck = { outcome: string | null; running: string | number | bigint | null };
/** The stored first turn of `id`, and `running` (a count of the licence's) beside it. */
const startCheck = (db: Kysely<Database>, id: string, running: SelectQueryBuilder<Database, 'sessions', object>) =>
  db.selectNoFrom((eb) => [
    eb.selectFrom('session_events').select('outcome').where('session_id', '=', id).where('event_id', '=', 'start').as('outcome'),
    running.select((inner) => inner.fn.countAll().as('count')).as('running'),
  ]);
const selectStartCountingCalls = prepareQuery<{ id: string }, StartCheck>((db, values) => startCheck(db, values.id, runningCalls(db)));
const selectStartCountingWebchats = prepareQuery<{ id: string; tenantId: number }, StartCheck>((db, values) => startCheck(db, values.id, runningWebchats(db, values.tenantId)));

/**
 * Before a start runs: the stored first turn if its id started before, and, when `counted` is
 * given (a real session, which the licence admits), how many running sessions it is counted with.
 */
export async function findStart(
  db: Kysely<Database>,
  id: string,
  counted?: { tenant_id: number; provider: string },
): Promise<{ stored: StoredOutcome | undefined; running: number }> {
  if (!counted) return { stored: await findEventOutcome(db, id, 'start'), running: 0 };
  const result = counted.provider === 'webchat' ? await selectStartCountingWebchats(db, { id, tenantId: counted.tenant_id }) : await selectStartCountingCalls(db, { id });
  const row = result.rows[0];
  return { stored: row?.outcome ? (JSON.parse(row.outcome) as StoredOutcome) : undefined, running: Number(row?.running ?? 0) };
}

/** What a turn reads of its session's row: the columns it uses, not the facts copied for queries (each column read is a value to decode, and on PostgreSQL a field to describe and parse). */
export type TurnRow = Pick<SessionRow, 'id' | 'tenant_id' | 'plan_id' | 'is_draft' | 'is_test' | 'status' | 'state' | 'revision' | 'updated_time'>;

const selectSessionAndEvent = prepareQuery<{ id: string; event_id: string }, TurnRow & { outcome: string | null }>((db, values) =>
  db
    .selectFrom('sessions')
    .leftJoin('session_events', (join) => join.onRef('session_events.session_id', '=', 'sessions.id').on('session_events.event_id', '=', values.event_id))
    .select(['sessions.id', 'sessions.tenant_id', 'sessions.plan_id', 'sessions.is_draft', 'sessions.is_test', 'sessions.status', 'sessions.state', 'sessions.revision', 'sessions.updated_time', 'session_events.outcome'])
    .where('sessions.id', '=', values.id),
);

/** The stored session, and the outcome of `eventId` if the session took that event before: one read for a turn's two questions. */
export async function findSessionForEvent(
  db: Kysely<Database>,
  id: string,
  eventId: string,
): Promise<{ row: TurnRow; stored: StoredOutcome | undefined } | undefined> {
  const found = (await selectSessionAndEvent(db, { id, event_id: eventId })).rows[0];
  if (!found) return undefined;
  const { outcome, ...row } = found;
  return { row, stored: outcome === null ? undefined : (JSON.parse(outcome) as StoredOutcome) };
}

/** The session's facts the sessions table copies into columns, for queries. */
type CopiedFact = 'id' | 'tenant_id' | 'plan_id' | 'plan_version' | 'channel' | 'provider' | 'direction' | 'caller' | 'called' | 'source_ip';

/**
 * Written out field by field, and spread by none: built from the list of keys (Object.fromEntries)
 * and spread into a start's row, it made a generic copy and a new map for each column added after
 * it on every session start. The type keeps it to these facts.
 */
export function sessionColumns(session: Session): Pick<Session, CopiedFact> {
  return {
    id: session.id,
    tenant_id: session.tenant_id,
    plan_id: session.plan_id,
    plan_version: session.plan_version,
    channel: session.channel,
    provider: session.provider,
    direction: session.direction,
    caller: session.caller,
    called: session.called,
    source_ip: session.source_ip,
  };
}

/** Every column of a new session. */
export type NewSession = Required<Insertable<SessionTable>>;

const insertSessionRow = prepareQuery<NewSession, never>((db, values) => db.insertInto('sessions').values(values));

export async function insertSession(trx: Kysely<Database>, values: NewSession): Promise<void> {
  await insertSessionRow(trx, values);
}

/** What a turn changes in its session's row. */
export type SessionTurnChanges = Pick<NewSession, 'revision' | 'status' | 'state' | 'last_activity_time' | 'timeout_time' | 'updated_time' | 'ended_time'>;

/** An event the session could not use moves only its revision. */
type IgnoredEventChanges = Pick<SessionTurnChanges, 'revision' | 'updated_time'>;

const updateAtRevision = (db: Kysely<Database>, { id, read_revision, ...changes }: Partial<SessionTurnChanges> & { id: string; read_revision: number }) =>
  db.updateTable('sessions').set(changes).where('id', '=', id).where('revision', '=', read_revision);

// One statement per shape of the changes: a prepared query has a fixed set of values.
const updateSessionRow = prepareQuery<SessionTurnChanges & { id: string; read_revision: number }, never>(updateAtRevision);
const touchSessionRow = prepareQuery<IgnoredEventChanges & { id: string; read_revision: number }, never>(updateAtRevision);

/** Writes the turn only over the revision it read; false when another turn got there first. */
export async function updateSessionAtRevision(
  trx: Kysely<Database>,
  id: string,
  revision: number,
  changes: SessionTurnChanges | IgnoredEventChanges,
): Promise<boolean> {
  const keys = { id, read_revision: revision };
  const result = 'state' in changes ? await updateSessionRow(trx, { ...changes, ...keys }) : await touchSessionRow(trx, { ...changes, ...keys });
  return (result.numAffectedRows ?? 0n) > 0n;
}

const insertEventRow = prepareQuery<{ session_id: string; event_id: string; revision: number; outcome: string; created_time: string }, never>(
  (db, values) => db.insertInto('session_events').values(values),
);

export async function insertEvent(trx: Kysely<Database>, sessionId: string, eventId: string, outcome: StoredOutcome, now: string): Promise<void> {
  await insertEventRow(trx, { session_id: sessionId, event_id: eventId, revision: outcome.revision, outcome: JSON.stringify(outcome), created_time: now });
}

/** The event stored with a turn, from the session row the same statement wrote: its revision and time are the row's. */
type EventOf<Row> = Row & { event_id: string; outcome: string };

/**
 * PostgreSQL: the session's row written over the revision read and the turn's event inserted from
 * it, in one statement (a data-modifying CTE), so one round trip instead of two; alone it is also
 * its own transaction, without `begin` and `commit`. No row is written when the revision moved on
 * (the event is inserted only from the updated row), and a duplicate event fails the whole statement.
 */
const turnWithEvent = (db: Kysely<Database>, { id, read_revision, event_id, outcome, ...changes }: EventOf<Partial<SessionTurnChanges> & { id: string; read_revision: number }>) =>
  db
    .with('turned', (qb) => qb.updateTable('sessions').set(changes).where('id', '=', id).where('revision', '=', read_revision).returning(['id', 'revision', 'updated_time']))
    .insertInto('session_events')
    .columns(['session_id', 'event_id', 'revision', 'outcome', 'created_time'])
    .expression((eb) => eb.selectFrom('turned').select((sb) => ['turned.id', sb.val(event_id).as('event_id'), 'turned.revision', sb.val(outcome).as('outcome'), 'turned.updated_time']));

const updateSessionWithEvent = prepareQuery<EventOf<SessionTurnChanges & { id: string; read_revision: number }>, never>(turnWithEvent);
const touchSessionWithEvent = prepareQuery<EventOf<IgnoredEventChanges & { id: string; read_revision: number }>, never>(turnWithEvent);

const insertSessionWithEvent = prepareQuery<EventOf<NewSession>, never>((db, { event_id, outcome, ...values }) =>
  db
    .with('started', (qb) => qb.insertInto('sessions').values(values).returning(['id', 'revision', 'created_time']))
    .insertInto('session_events')
    .columns(['session_id', 'event_id', 'revision', 'outcome', 'created_time'])
    .expression((eb) => eb.selectFrom('started').select((sb) => ['started.id', sb.val(event_id).as('event_id'), 'started.revision', sb.val(outcome).as('outcome'), 'started.created_time'])),
);

/**
 * Stores a turn: the session's row over the revision it read, and the turn's event (`outcome`,
 * at the row's new revision and `updated_time`). False when another turn got there first: then
 * nothing is written. On PostgreSQL one statement, which `db` may run outside a transaction; on
 * SQLite two, inside the caller's transaction (each costs a few microseconds there, not a round trip).
 */
export async function storeTurn(
  db: Kysely<Database>,
  dialect: DialectName,
  turn: { id: string; revision: number; changes: SessionTurnChanges | IgnoredEventChanges; eventId: string; outcome: StoredOutcome },
): Promise<boolean> {
  const { id, revision, changes, eventId, outcome } = turn;
  if (dialect === 'sqlite') {
    if (!(await updateSessionAtRevision(db, id, revision, changes))) return false;
    await insertEvent(db, id, eventId, outcome, changes.updated_time);
    return true;
  }
  const values = { ...changes, id, read_revision: revision, event_id: eventId, outcome: JSON.stringify(outcome) };
  const result = 'state' in changes ? await updateSessionWithEvent(db, { ...changes, ...values }) : await touchSessionWithEvent(db, values);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** Stores a new session and its first turn's event (`start`, revision 1): on PostgreSQL in one statement. */
export async function storeStart(trx: Kysely<Database>, dialect: DialectName, values: NewSession, outcome: StoredOutcome): Promise<void> {
  if (dialect === 'sqlite') {
    await insertSession(trx, values);
    await insertEvent(trx, values.id, 'start', outcome, values.created_time);
    return;
  }
  await insertSessionWithEvent(trx, { ...values, event_id: 'start', outcome: JSON.stringify(outcome) });
}

/** Who the customers of these chats are, as their channels told it (docs/conversations.md), by session id; sessions that know nothing of theirs are left out. */
export async function customersOfSessions(db: Kysely<Database>, sessionIds: readonly string[]): Promise<Map<string, ChatCustomer>> {
  const customers = new Map<string, ChatCustomer>();
  if (sessionIds.length === 0) return customers;
  const rows = await db.selectFrom('sessions').select(['id', 'customer']).where('id', 'in', sessionIds).where('customer', 'is not', null).execute();
  for (const row of rows) customers.set(row.id, JSON.parse(row.customer!) as ChatCustomer);
  return customers;
}

/**
 * PostgreSQL: the turn that ends a session, its report and (unless a test) the report's rollups, in
 * ONE statement, its own transaction: the session's row over the revision read, the turn's event
 * from the updated row, the report inserted only if the row was, the rollups raised only if the
 * report was inserted (data-modifying CTEs all see one snapshot and commit together). Null when the
 * revision moved on: nothing is written. A duplicate event fails the whole statement, as
 * `storeTurn`'s does. The report comes as one JSON value read by call_reports' own row type. A
 * report stored already (none is, at a session's end, but for a race) is replaced as `saveReport`
 * replaces one, and not counted again.
 */
export async function storeEnd(
  db: Kysely<Database>,
  turn: { id: string; revision: number; changes: SessionTurnChanges; eventId: string; outcome: StoredOutcome },
  report: CallReport,
  isTest: boolean,
  now: string,
): Promise<StoredReport | null> {
  const parameters: unknown[] = [];
  const parameter = (value: unknown): string => `$${parameters.push(value)}`;
  const values = reportValues(report, isTest, now);
  const set = Object.entries(turn.changes)
    .map(([column, value]) => `"${column}" = ${parameter(value)}`)
    .join(', ');
  const reportColumns = [...Object.keys(values), 'created_time'].map((column) => `"${column}"`).join(', ');
  const ctes = [
    `"turned" as (update "sessions" set ${set} where "id" = ${parameter(turn.id)} and "revision" = ${parameter(turn.revision)} returning "id", "revision", "updated_time")`,
    `"event" as (insert into "session_events" ("session_id", "event_id", "revision", "outcome", "created_time") ` +
      `select "id", ${parameter(turn.eventId)}, "revision", ${parameter(JSON.stringify(turn.outcome))}, "updated_time" from "turned")`,
    `"report" as (insert into "call_reports" (${reportColumns}) select ${reportColumns} from json_populate_record(null::"call_reports", ${parameter(JSON.stringify({ ...values, created_time: now }))}::json) ` +
      `where exists (select 1 from "turned") on conflict ("session_id") do nothing returning "id", "created_time")`,
    ...(isTest ? [] : rollupCtes(report, 'report', parameter).map((text, index) => `"rollup${index}" as (${text})`)),
  ];
  // The plans entered through `call_plan`, with the report if it was inserted; nothing for a session that called none.
  const calledPlans = calledPlanRows(report, isTest);
  if (calledPlans.length > 0) {
    const columns = ['tenant_id', 'plan_id', 'plan_version', 'start_time', 'goal'].map((column) => `"${column}"`).join(', ');
    ctes.push(
      `"plans" as (insert into "call_report_plans" ("report_id", ${columns}) select "report"."id", ${columns} from "report" ` +
        `cross join json_populate_recordset(null::"call_report_plans", ${parameter(JSON.stringify(calledPlans))}::json))`,
    );
  }
  const text = `with ${ctes.join(', ')} select (select count(*) from "turned")::integer as "turned", "report"."id", "report"."created_time" from (select 1) as "one" left join "report" on true`;
  // Named: its text is one of a few (which rollups a report has), and a session's end is one of every call's statements.
  const { rows } = await executeCompiled<{ turned: number; id: number | null; created_time: string | null }>(db, CompiledQuery.raw(text, parameters), statementNameOf(text));
  const stored = rows[0];
  if (!stored || stored.turned === 0) return null;
  let row: { id: number; created_time: string } | undefined;
  if (stored.id !== null && stored.created_time !== null) row = { id: stored.id, created_time: stored.created_time };
  else {
    row = (await updateReportRow(db, values)).rows[0];
    if (row) await saveCalledPlans(db, row.id, report, isTest);
  }
  if (!row) throw new Error(`the report of session ${report.session_id} was not stored`);
  return presentReport({ id: row.id, ...values, created_time: row.created_time }, report);
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
 * Voice sessions still waiting with no activity since `before`, the longest silent first: their
 * provider never told their end. Only live sessions are read (the status index), few beside the history.
 */
export function staleVoiceSessions(db: Kysely<Database>, before: string, limit: number): Promise<Array<Pick<SessionRow, 'id' | 'revision' | 'last_activity_time'>>> {
  return db
    .selectFrom('sessions')
    .select(['id', 'revision', 'last_activity_time'])
    .where('status', '=', 'waiting')
    .where('channel', '=', 'voice')
    .where('last_activity_time', '<', before)
    .orderBy('last_activity_time')
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

export function parseSession(row: Pick<SessionRow, 'state'>): Session {
  return JSON.parse(row.state) as Session;
}
