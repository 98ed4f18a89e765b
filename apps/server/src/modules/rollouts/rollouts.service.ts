import type { Rollout, RolloutPatch } from '@voxplan/contracts';
import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { AppContext, Scope } from '../../context.ts';
import type { ResourceService } from '../../resources/service.ts';
import type { PlanRow } from '../visual-plans/plan-document.ts';
import { changeRollout, endRollout, type RolloutEnd } from './rollout-controls.ts';
import { findRunning, presentRollout, presentRollouts } from './rollout-rows.ts';

/**
 * A plan's rollout as the API reads and controls it (docs/rollouts.md): the plan is found through
 * the plans' resource, so tenant scope and roles are those of publishing the plan.
 */
export class RolloutService {
  constructor(
    private readonly ctx: AppContext,
    private readonly plans: ResourceService<VisualPlan>,
  ) {}

  /** The running rollout, or null. */
  async current(scope: Scope, planId: number): Promise<Rollout | null> {
    this.plans.assertReadable(scope);
    await this.plans.findRow(this.ctx.db, scope, planId);
    const row = await findRunning(this.ctx.db, planId);
    return row ? presentRollout(this.ctx.db, row) : null;
  }

  /** The plan's rollouts, newest first. */
  async history(scope: Scope, planId: number): Promise<Rollout[]> {
    this.plans.assertReadable(scope);
    await this.plans.findRow(this.ctx.db, scope, planId);
    const rows = await this.ctx.db.selectFrom('plan_rollouts').selectAll().where('plan_id', '=', planId).orderBy('started_time', 'desc').orderBy('id', 'desc').execute();
    return presentRollouts(this.ctx.db, rows);
  }

  async change(scope: Scope, planId: number, patch: RolloutPatch): Promise<Rollout> {
    this.plans.assertWritable(scope);
    return this.plans.inTransaction(scope, async (write) => {
      const plan = (await this.plans.findRow(write.trx, scope, planId)) as unknown as PlanRow;
      return presentRollout(write.trx, await changeRollout(write.trx, scope, plan, patch));
    });
  }

  /** Promote (everyone meets the new version) or roll back (no one does). */
  async end(scope: Scope, planId: number, reason: Exclude<RolloutEnd, 'auto_rollback'>): Promise<Rollout> {
    this.plans.assertWritable(scope);
    return this.plans.inTransaction(scope, async (write) => {
      const plan = (await this.plans.findRow(write.trx, scope, planId)) as unknown as PlanRow;
      return presentRollout(write.trx, await endRollout(write.trx, scope, plan, reason));
    });
  }
}
