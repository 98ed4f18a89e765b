import type { Rollout } from '@voxplan/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { Database, PlanRolloutTable } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';

export type RolloutRow = Selectable<PlanRolloutTable>;

/** The plan's running rollout, or undefined. */
export function findRunning(db: Kysely<Database>, planId: number): Promise<RolloutRow | undefined> {
  return db.selectFrom('plan_rollouts').selectAll().where('plan_id', '=', planId).where('state', '=', 'running').executeTakeFirst();
}

/** The plan's running rollout, or `404 rollout_not_found`. */
export async function requireRunning(db: Kysely<Database>, planId: number): Promise<RolloutRow> {
  const row = await findRunning(db, planId);
  if (!row) throw notFound('rollout_not_found');
  return row;
}

/** The row as the API answers it, without names (audit entries hold ids and the plan's name). */
function presentRow(row: RolloutRow): Omit<Rollout, 'started_by_name' | 'ended_by_name'> {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    plan_id: row.plan_id,
    base_version: row.base_version,
    candidate_version: row.candidate_version,
    share: row.share,
    pinned: JSON.parse(row.pinned) as string[],
    auto_rollback: row.auto_rollback === null ? null : (JSON.parse(row.auto_rollback) as Rollout['auto_rollback']),
    state: row.state,
    ended_reason: row.ended_reason,
    ended_note: row.ended_note,
    started_time: row.started_time,
    started_by: row.started_by,
    ended_time: row.ended_time,
    ended_by: row.ended_by,
  };
}

/** What an audit entry of a rollout holds: the row, and the plan by name (a person reads the log). */
export function auditedRollout(row: RolloutRow, planName: string): Record<string, unknown> {
  return { ...presentRow(row), plan_name: planName };
}

/**
 * Rollouts as the API answers them, with who started and ended each by name, read for all the rows
 * at once (members and guests may not list users to find them).
 */
export async function presentRollouts(db: Kysely<Database>, rows: readonly RolloutRow[]): Promise<Rollout[]> {
  const ids = [...new Set(rows.flatMap((row) => [row.started_by, row.ended_by]).filter((id): id is number => id !== null))];
  const users = ids.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids).execute();
  const names = new Map(users.map((user) => [user.id, user.name]));
  const nameOf = (id: number | null) => (id === null ? null : (names.get(id) ?? null));
  return rows.map((row) => ({ ...presentRow(row), started_by_name: nameOf(row.started_by), ended_by_name: nameOf(row.ended_by) }));
}

export async function presentRollout(db: Kysely<Database>, row: RolloutRow): Promise<Rollout> {
  return (await presentRollouts(db, [row]))[0]!;
}
