/**
 * A rollout's writes (docs/rollouts.md, "The controls"): start, change, end. Each runs in the
 * caller's transaction, writes the rollout and its plan's row together (the choice reads the plan's
 * row, so every instance's plan cache sees the change at its next read) and is audited with the
 * plan's name and versions. Sessions already running keep the version stored on them.
 */
import type { RolloutPatch, RolloutStart } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { conflict, notFound } from '../../errors.ts';
import { contactKeyOf } from '../../lib/rollout-choice.ts';
import { nowIso } from '../../lib/time.ts';
import { type AuditAuthor, recordAudit } from '../audit/audit.recorder.ts';
import { type PlanRow, presentPlan } from '../visual-plans/plan-document.ts';
import { rewritePlanReferences } from '../visual-plans/live-references.ts';
import { auditedRollout, requireRunning, type RolloutRow } from './rollout-rows.ts';

const ENTITY = 'plan_rollout';

/** Pinned contacts as the choice compares them: numbers in E.164, visitor ids as sent, each once. */
export function pinnedKeys(pinned: readonly string[]): string[] {
  return [...new Set(pinned.map(contactKeyOf))];
}

const encodeAutoRollback = (value: RolloutStart['auto_rollback']) => (value ? JSON.stringify(value) : null);

/** The plan's row after a write that matched it: the caller's transaction holds it. */
function readPlan(db: Kysely<Database>, planId: number): Promise<PlanRow> {
  return db.selectFrom('visual_plans').selectAll().where('id', '=', planId).executeTakeFirstOrThrow();
}

/**
 * Starts a rollout of `candidate` (published already, as a row of visual_plan_versions) on `plan`,
 * whose published version the rest keep. Refused when the plan was never published or a rollout runs.
 */
export async function startRollout(db: Kysely<Database>, author: AuditAuthor, plan: PlanRow, candidate: number, input: RolloutStart): Promise<RolloutRow> {
  if (plan.published_version === null) throw conflict('rollout_needs_published');
  const pinned = pinnedKeys(input.pinned);
  // `rollout_version is null` in the update: of two starts side by side exactly one matches.
  const updated = await db
    .updateTable('visual_plans')
    .set({ rollout_version: candidate, rollout_share: input.share, rollout_pinned: JSON.stringify(pinned) })
    .where('id', '=', plan.id)
    .where('rollout_version', 'is', null)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw conflict('rollout_running');
  const row = await db
    .insertInto('plan_rollouts')
    .values({
      tenant_id: plan.tenant_id,
      plan_id: plan.id,
      base_version: plan.published_version,
      candidate_version: candidate,
      share: input.share,
      pinned: JSON.stringify(pinned),
      auto_rollback: encodeAutoRollback(input.auto_rollback),
      state: 'running',
      ended_reason: null,
      ended_note: null,
      started_time: nowIso(),
      started_by: author.actor.userId,
      ended_time: null,
      ended_by: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await rewritePlanReferences(db, await readPlan(db, plan.id));
  await recordAudit(db, author, [{ action: 'create', entity: ENTITY, entityId: row.id, tenantId: row.tenant_id, before: null, after: auditedRollout(row, plan.name) }]);
  return row;
}

/** Changes the running rollout's share, pinned contacts or automatic rollback; `404 rollout_not_found` when none runs. */
export async function changeRollout(db: Kysely<Database>, author: AuditAuthor, plan: PlanRow, patch: RolloutPatch): Promise<RolloutRow> {
  const before = await requireRunning(db, plan.id);
  const pinned = patch.pinned === undefined ? before.pinned : JSON.stringify(pinnedKeys(patch.pinned));
  const share = patch.share ?? before.share;
  const autoRollback = patch.auto_rollback === undefined ? before.auto_rollback : encodeAutoRollback(patch.auto_rollback);
  const after = await db
    .updateTable('plan_rollouts')
    .set({ share, pinned, auto_rollback: autoRollback })
    .where('id', '=', before.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await db.updateTable('visual_plans').set({ rollout_share: share, rollout_pinned: pinned }).where('id', '=', plan.id).execute();
  await recordAudit(db, author, [
    { action: 'update', entity: ENTITY, entityId: after.id, tenantId: after.tenant_id, before: auditedRollout(before, plan.name), after: auditedRollout(after, plan.name) },
  ]);
  return after;
}

export type RolloutEnd = 'promoted' | 'rolled_back' | 'auto_rollback';

/**
 * Ends the running rollout: `promoted` makes its new version the published one (everyone meets it),
 * `rolled_back` and `auto_rollback` leave the published version (no one does). `note` says why an
 * automatic rollback happened, in words a person reads. `404 rollout_not_found` when none runs.
 */
export async function endRollout(db: Kysely<Database>, author: AuditAuthor, plan: PlanRow, reason: RolloutEnd, note: string | null = null): Promise<RolloutRow> {
  const before = await requireRunning(db, plan.id);
  const now = nowIso();
  // `state = 'running'` in the update: of two ends side by side (a person's and the automatic one) one wins.
  const after = await db
    .updateTable('plan_rollouts')
    .set({ state: reason === 'promoted' ? 'promoted' : 'rolled_back', ended_reason: reason, ended_note: note, ended_time: now, ended_by: author.actor.userId })
    .where('id', '=', before.id)
    .where('state', '=', 'running')
    .returningAll()
    .executeTakeFirst();
  if (!after) throw notFound('rollout_not_found');
  await db
    .updateTable('visual_plans')
    .set({ rollout_version: null, rollout_share: null, rollout_pinned: null, ...(reason === 'promoted' && { published_version: before.candidate_version }) })
    .where('id', '=', plan.id)
    .execute();
  const planAfter = await readPlan(db, plan.id);
  await rewritePlanReferences(db, planAfter);
  await recordAudit(db, author, [
    { action: 'update', entity: ENTITY, entityId: after.id, tenantId: after.tenant_id, before: auditedRollout(before, plan.name), after: auditedRollout(after, plan.name) },
    ...(reason === 'promoted'
      ? [{ action: 'update' as const, entity: 'visual_plan', entityId: plan.id, tenantId: plan.tenant_id, before: presentPlan(plan), after: presentPlan(planAfter) }]
      : []),
  ]);
  return after;
}
