/**
 * The plans API (docs/api.md, "Visual plans"). The plan document itself (settings, nodes, edges,
 * format version, migration, validation) belongs to @voxplan/blocks; this module is the API
 * around it. It is a subpath of its own (`@voxplan/contracts/visual-plan`) so that screens which
 * never open a plan do not carry the block schemas.
 */
import { planEdgeSchema, planNodeSchema, planSettingsSchema } from '@voxplan/blocks/definitions';
import { z } from 'zod';
import { idSchema, maxId, timestampSchema } from './common.ts';
import { rolloutSchema, rolloutStartSchema } from './rollout.ts';

export const visualPlanLimits = { name: 100, description: 500 } as const;

const versionSchema = z.number().int().min(1).max(maxId);
const nameSchema = z.string().trim().min(1).max(visualPlanLimits.name);
const descriptionSchema = z.string().max(visualPlanLimits.description);

/** A plan as lists and the generic calls show it: what it is, not its blocks. */
export const visualPlanSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  description: z.string(),
  /** Grows by one on every save of the draft. */
  version: versionSchema,
  /** The draft version that calls and chats run, or null while the plan was never published. */
  published_version: versionSchema.nullable(),
  /** Who saved the draft (or renamed the plan) last; null once that user is removed. */
  updated_by: idSchema.nullable(),
  /**
   * That user's name, so that members and guests, who may not list users, see who it was;
   * null with updated_by. Read-only, and not a field filters or sorting may name.
   */
  updated_by_name: z.string().nullable(),
});
export type VisualPlan = z.infer<typeof visualPlanSchema>;

/** A new plan starts with one start block; its document is then saved with PUT /visual-plans/{id}/document. */
export const visualPlanCreateSchema = z.object({ name: nameSchema, description: descriptionSchema.default('') }).strict();
export const visualPlanUpdateSchema = z.object({ name: nameSchema, description: descriptionSchema }).partial().strict();

/** An error or a warning about a plan; `path` is inside the node's data, the edge, or the document. */
export const planIssueSchema = z.object({
  code: z.string(),
  message: z.string(),
  node_id: z.string().optional(),
  edge_id: z.string().optional(),
  path: z.string(),
});

const contentFields = {
  format_version: z.number().int().min(0).describe('format of the document; older formats are migrated'),
  settings: planSettingsSchema,
  nodes: z.array(planNodeSchema),
  edges: z.array(planEdgeSchema),
};

/**
 * The draft being edited: the plan and its document, with the lint warnings of the saved state.
 * `errors` is empty unless the stored draft no longer passes today's validation.
 */
export const visualPlanDocumentSchema = visualPlanSchema.extend({
  ...contentFields,
  warnings: z.array(planIssueSchema),
  errors: z.array(planIssueSchema),
});

/**
 * A plan's content in a request. Only `base_version` (or `name`) is checked here: the document is
 * migrated from its format first and then validated as a whole, every problem answered together
 * as `400 invalid_plan` with the node it is about.
 */
const documentBodyFields = {
  format_version: z.unknown().optional().describe('format of the document; absent means the oldest, and older formats are migrated'),
  settings: z.unknown().optional().describe('session_timeout_min, chat_text, sync_with_voice_text, webhook, language, twilio_voice, tts_voice'),
  nodes: z.unknown().optional().describe('[{id, type, position: {x, y}, data}]'),
  edges: z.unknown().optional().describe('[{id, source, source_exit, target}]'),
};

export const visualPlanSaveSchema = z.looseObject({
  base_version: versionSchema.describe('the version the editor loaded: if another save came since, 409 plan_out_of_sync'),
  ...documentBodyFields,
});

/** Publishing publishes the draft the caller saw. */
export const visualPlanRestoreSchema = z.object({ base_version: versionSchema }).strict();
/** With `rollout`, the draft becomes a version that only a share of the sessions meets (docs/rollouts.md). */
export const visualPlanPublishSchema = visualPlanRestoreSchema.extend({ rollout: rolloutStartSchema.optional() }).strict();

/** A new plan from content (save under another name, import): the file export writes. */
export const visualPlanImportSchema = z.looseObject({ name: nameSchema, description: descriptionSchema.default(''), ...documentBodyFields });
export const visualPlanSaveAsSchema = visualPlanImportSchema;

export const visualPlanDuplicateSchema = z
  .object({ name: nameSchema.optional().describe('default: the name with " (copy)", numbered when taken') })
  .strict();

/** What export writes and import reads. */
export const visualPlanExportSchema = z.object({ name: z.string(), description: z.string(), ...contentFields });

/** A published version, as listed. */
export const visualPlanVersionSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  plan_id: idSchema,
  version: versionSchema,
  /** The plan's name when it was published. */
  name: z.string(),
  published_time: timestampSchema,
  published_by: idSchema.nullable(),
});
export type VisualPlanVersion = z.infer<typeof visualPlanVersionSchema>;

export const visualPlanVersionDocumentSchema = visualPlanVersionSchema.extend(contentFields);

export const visualPlanPublishedSchema = visualPlanVersionSchema.extend({
  warnings: z.array(planIssueSchema),
  /** The rollout this publish started; null on a plain publish. */
  rollout: rolloutSchema.nullable(),
});

/** A draft as one save left it, as listed (the versions drawer's saved drafts). */
export const visualPlanDraftSchema = z.object({
  plan_id: idSchema,
  version: versionSchema,
  saved_time: timestampSchema,
  saved_by: idSchema.nullable(),
  /** Who saved it, by name (null once the user is removed). */
  saved_by_name: z.string().nullable(),
});
export type VisualPlanDraft = z.infer<typeof visualPlanDraftSchema>;

export const visualPlanDraftDocumentSchema = visualPlanDraftSchema.extend(contentFields);
export type VisualPlanDraftDocument = z.output<typeof visualPlanDraftDocumentSchema>;

/** Saves keep this many drafts per plan, the newest; older ones are forgotten. */
export const visualPlanDraftHistory = 50;

export const visualPlanVersionParams = z.object({ id: z.coerce.number().int().positive().max(maxId), version: z.coerce.number().int().positive().max(maxId) });
export const visualPlanExportQuery = z.object({
  version: z.coerce.number().int().positive().max(maxId).optional().describe('a published version; absent: the draft'),
});

export type VisualPlanDocument = z.output<typeof visualPlanDocumentSchema>;
export type VisualPlanVersionDocument = z.output<typeof visualPlanVersionDocumentSchema>;
export type VisualPlanPublished = z.output<typeof visualPlanPublishedSchema>;
export type VisualPlanExport = z.output<typeof visualPlanExportSchema>;
