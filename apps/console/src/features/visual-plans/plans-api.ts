import type { VisualPlan } from '@voxplan/contracts/visual-plan';

/** The plans resource of the generic API (docs/api.md, "Visual plans"). */
export const PLANS = '/visual-plans';

/** Where a plan is edited. */
export const planEditorPath = (plan: Pick<VisualPlan, 'id'>) => `/visual-plan/${plan.id}`;
