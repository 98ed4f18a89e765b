import { engineLimits } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { callPlanBlock } from './definition.ts';

export const callPlanRuntime = defineRuntime(callPlanBlock, {
  compile: (data) => data,
  async enter(turn, node) {
    const { session } = turn;
    const planId = node.config.plan_id;
    if (planId === session.plan_id || session.call_stack.some((frame) => frame.plan_id === planId)) {
      return { fail: 'plan_recursion', message: `plan ${planId} is already running in this session; a plan may not reach itself` };
    }
    if (1 + session.call_stack.length >= engineLimits.maxPlanDepth) {
      return { fail: 'plan_depth_limit', message: `a session may go ${engineLimits.maxPlanDepth} plans deep` };
    }
    // The called plan's own rollout chooses, by the same contact: sticky there too (docs/rollouts.md).
    const plan = await turn.ports.plans.loadPublished(session.tenant_id, planId, session.contact_key);
    if (!plan || plan.tenant_id !== session.tenant_id) return { fail: 'reference_not_found', message: `plan ${planId} has no published version in the tenant` };
    return { enterPlan: plan };
  },
});
