import { type PlanContent, planReferences } from '@voxplan/blocks/definitions';
import { visualPlanCreateSchema, visualPlanSchema, visualPlanUpdateSchema } from '@voxplan/contracts/visual-plan';
import { defineResource, memberKeptTenantRecords, tenantRecordFields } from '../../resources/definition.ts';
import { invalidPlan, newPlanContent, planSummaryColumns, presentPlans } from './plan-document.ts';
import { assertNotUsedByNumbers } from '../numbers/numbers.resource.ts';
import { assertNotReferenced, missingReferences, writePlanReferences } from './plan-references.ts';

/**
 * Visual plans through the generic layer: list, count, get, create (a plan with one start
 * block), rename, describe and remove, with filters, tenant scope, roles and audit. The document
 * is read and saved with its version by the plan routes (visual-plans.routes.ts), which also
 * create plans from content (save as, duplicate, import) through `create` here: they pass the
 * validated content as `document`, which the HTTP body of POST /visual-plans cannot carry.
 */
export const visualPlansResource = defineResource({
  entity: 'visual_plan',
  path: '/visual-plans',
  table: 'visual_plans',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    description: 'string',
    version: 'integer',
    published_version: 'integer',
    updated_by: 'integer',
  },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: visualPlanSchema,
  createInput: visualPlanCreateSchema,
  updateInput: visualPlanUpdateSchema,
  unique: [{ columns: ['tenant_id', 'name'], code: 'name_already_exists' }],
  listColumns: planSummaryColumns,
  present: presentPlans,
  // updated_by_name: a renamed or removed user changes the answers.
  readTables: ['users'],
  async toValues(input, write, before) {
    const updatedBy = write.scope.actor.userId;
    // A rename or a new description: the document keeps its version (only its saves are versioned).
    if (before) return { ...input, updated_by: updatedBy };
    const content = (input.document as PlanContent | undefined) ?? newPlanContent();
    // A create always has its tenant in the scope (the generic layer refuses one without).
    const missing = await missingReferences(write, write.scope.tenantId!, content);
    if (missing.length > 0) throw invalidPlan(missing);
    return { ...input, document: JSON.stringify(content), version: 1, published_version: null, updated_by: updatedBy };
  },
  async afterWrite(id, input, write) {
    if (input.document === undefined) return;
    await writePlanReferences(write.trx, write.scope.tenantId!, id, planReferences(input.document as PlanContent));
  },
  inUseCode: 'plan_in_use',
  async beforeDelete(rows, write) {
    await assertNotReferenced(write, 'plan', rows, 'plan_in_use');
    // "A plan used by a number cannot be removed" (spec section 5): its own plans or a rule's.
    await assertNotUsedByNumbers(write, 'plan', rows, 'plan_in_use');
  },
});
