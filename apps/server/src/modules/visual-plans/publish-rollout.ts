import type { PlanContent } from '@voxplan/blocks/definitions';
import type { Rollout, RolloutStart } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Scope } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { recordAudit } from '../audit/audit.recorder.ts';
import { startRollout } from '../rollouts/rollout-controls.ts';
import { presentRollout } from '../rollouts/rollout-rows.ts';
import { type PlanRow, type PlanVersionRow, presentVersion } from './plan-document.ts';

/**
 * The draft of `plan` as its published version `plan.version`: the row publishing writes, or the
 * one a rollout of the same draft wrote before (rolled back, and now published again), so that a
 * version number always names one document. A new row is audited here.
 */
export async function versionRowFor(db: Kysely<Database>, scope: Scope, plan: PlanRow, content: PlanContent): Promise<PlanVersionRow> {
  const existing = await db.selectFrom('visual_plan_versions').selectAll().where('plan_id', '=', plan.id).where('version', '=', plan.version).executeTakeFirst();
  if (existing) return existing;
  const version = await db
    .insertInto('visual_plan_versions')
    .values({
      tenant_id: plan.tenant_id,
      plan_id: plan.id,
      version: plan.version,
      name: plan.name,
      document: JSON.stringify(content),
      published_time: nowIso(),
      published_by: scope.actor.userId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(db, scope, [{ action: 'create', entity: 'visual_plan_version', entityId: version.id, tenantId: version.tenant_id, before: null, after: presentVersion(version) }]);
  return version;
}

/**
 * Publishes the draft to a rollout (docs/rollouts.md): a new version that the share and the pinned
 * contacts meet, while the plan's published version stays for the rest. The plan must have been
 * published once, and no rollout may run; the draft must differ from the published version.
 */
export async function publishToRollout(
  db: Kysely<Database>,
  scope: Scope,
  plan: PlanRow,
  content: PlanContent,
  input: RolloutStart,
): Promise<{ version: PlanVersionRow; rollout: Rollout }> {
  if (plan.published_version === null) throw conflict('rollout_needs_published');
  if (plan.rollout_version !== null) throw conflict('rollout_running');
  if (plan.published_version === plan.version) {
    throw badRequest('invalid_input', [{ path: 'rollout', message: `the draft is version ${plan.version}, the published one already` }]);
  }
  const version = await versionRowFor(db, scope, plan, content);
  const row = await startRollout(db, scope, plan, plan.version, input);
  return { version, rollout: await presentRollout(db, row) };
}
