/** The `outbound_calls` table (migration 0026): a call from its request to its outcome. */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Database, OutboundCallTable } from '../../db/schema.ts';

export type OutboundCallRow = Selectable<OutboundCallTable>;

/** Still ringing, or not yet handed to the provider: what the licence counts besides the running sessions. */
const pendingStates = ['queued', 'dialing'] as const;

/** The numbers among `numbers` that a call of the tenant is queued for, ringing or in (not ended: the predicate of the unique index of migration 0039, which answers this). */
export async function numbersInCall(db: Kysely<Database>, tenantId: number, numbers: readonly string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const rows = await db.selectFrom('outbound_calls').select('called').where('state', '<>', 'ended').where('tenant_id', '=', tenantId).where('called', 'in', numbers).execute();
  return new Set(rows.map((row) => row.called));
}

/**
 * Stores a call unless the tenant already has one to that number that has not ended (a campaign's
 * or the API's): false then, nothing stored. One statement against the unique index of the calls
 * not ended (migration 0039), so two instances at once cannot both store one.
 */
export async function insertCallUnlessInCall(db: Kysely<Database>, row: Insertable<OutboundCallTable>): Promise<boolean> {
  const result = await db
    .insertInto('outbound_calls')
    .values(row)
    // The index's predicate as a literal: SQLite matches a conflict target to a partial index by its text, not a bound value.
    .onConflict((oc) => oc.columns(['tenant_id', 'called']).where(sql<boolean>`state <> 'ended'`).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function findCall(db: Kysely<Database>, sessionId: string): Promise<OutboundCallRow | undefined> {
  return db.selectFrom('outbound_calls').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
}

/** The provider took the call; a callback that came first (the callee answered already) stands. */
export async function markDialing(db: Kysely<Database>, sessionId: string, providerCallId: string, now: string): Promise<void> {
  await db
    .updateTable('outbound_calls')
    .set({ state: 'dialing', updated_time: now })
    .where('session_id', '=', sessionId)
    .where('state', '=', 'queued')
    .execute();
  await db.updateTable('outbound_calls').set({ provider_call_id: providerCallId }).where('session_id', '=', sessionId).where('provider_call_id', 'is', null).execute();
}

/** The provider refused the call: nothing of it is kept. */
export async function deleteQueuedCall(db: Kysely<Database>, sessionId: string): Promise<void> {
  await db.deleteFrom('outbound_calls').where('session_id', '=', sessionId).where('state', '=', 'queued').execute();
}

/** The callee answered: true for the first time this is told. */
export async function markAnswered(
  db: Kysely<Database>,
  sessionId: string,
  answer: { answered_by: string | null; provider_call_id: string | null },
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('outbound_calls')
    .set((eb) => ({
      state: 'in_progress',
      dial_status: 'answer',
      answered_by: answer.answered_by === null ? eb.ref('answered_by') : eb.val(answer.answered_by),
      provider_call_id: answer.provider_call_id === null ? eb.ref('provider_call_id') : eb.val(answer.provider_call_id),
      updated_time: now,
    }))
    .where('session_id', '=', sessionId)
    .where('state', 'in', pendingStates)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A dial nobody answered ended: the row as it now stands, or undefined when it had ended (or been answered) before. */
export async function endUnanswered(
  db: Kysely<Database>,
  sessionId: string,
  end: { dial_status: string; answered_by: string | null; provider_call_id: string | null },
  now: string,
): Promise<OutboundCallRow | undefined> {
  return db
    .updateTable('outbound_calls')
    .set((eb) => ({
      state: 'ended',
      dial_status: end.dial_status,
      answered_by: end.answered_by === null ? eb.ref('answered_by') : eb.val(end.answered_by),
      provider_call_id: end.provider_call_id === null ? eb.ref('provider_call_id') : eb.val(end.provider_call_id),
      updated_time: now,
      ended_time: now,
    }))
    .where('session_id', '=', sessionId)
    .where('state', 'in', pendingStates)
    .returningAll()
    .executeTakeFirst();
}

/** The session of an answered call ended: the row as it now stands, or undefined when it was no outbound call or had ended before. */
export async function endAnswered(db: Kysely<Database>, sessionId: string, now: string): Promise<OutboundCallRow | undefined> {
  return db
    .updateTable('outbound_calls')
    .set((eb) => ({ state: 'ended', dial_status: eb.fn.coalesce('dial_status', eb.val('answer')), updated_time: now, ended_time: now }))
    .where('session_id', '=', sessionId)
    .where('state', '<>', 'ended')
    .returningAll()
    .executeTakeFirst();
}

export async function setAnsweredBy(db: Kysely<Database>, sessionId: string, answeredBy: string, now: string): Promise<OutboundCallRow | undefined> {
  return db
    .updateTable('outbound_calls')
    .set({ answered_by: answeredBy, updated_time: now })
    .where('session_id', '=', sessionId)
    .returningAll()
    .executeTakeFirst();
}

/** Calls handed to a provider that no session counts yet (they ring): the licence counts them as running. */
export async function countPendingCalls(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('outbound_calls')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('state', 'in', pendingStates)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Calls still queued or ringing that were placed before `before`: candidates for the sweep of calls whose end never came. */
export function pendingCallsBefore(db: Kysely<Database>, before: string, limit: number): Promise<Array<Pick<OutboundCallRow, 'session_id' | 'state' | 'ring_timeout_s' | 'updated_time'>>> {
  return db
    .selectFrom('outbound_calls')
    .select(['session_id', 'state', 'ring_timeout_s', 'updated_time'])
    .where('state', 'in', pendingStates)
    .where('created_time', '<', before)
    .orderBy('created_time')
    .limit(limit)
    .execute();
}
