/**
 * Staged rollouts (issue 41, docs/rollouts.md): a published version put before a share of a plan's
 * sessions, sticky per contact, while the rest keep the plan's published version.
 */
import { z } from 'zod';
import { idSchema, maxId, timestampSchema } from './common.ts';

export const rolloutLimits = { pinned: 100, pinnedLength: 200 } as const;

const versionSchema = z.number().int().min(1).max(maxId);

/** Percent of the contacts (sticky) that meet the new version; 0: the pinned ones only. */
export const rolloutShareSchema = z.number().int().min(0).max(100);

/**
 * Contacts that always meet the new version: phone numbers (calls, WhatsApp; stored in E.164) or
 * web chat visitor ids (the site's signed-in user id).
 */
export const rolloutPinnedSchema = z
  .array(z.string().trim().min(1).max(rolloutLimits.pinnedLength))
  .max(rolloutLimits.pinned)
  .describe('phone numbers (brought to E.164) or web chat visitor ids');

export const rolloutAutoRollbackSchema = z
  .object({
    /** Roll back when the new version's goal rate is worse than the current one's at 95 % confidence. */
    goal_worse: z.boolean(),
    /** Roll back when more than this percent of its sessions end in an engine error or a failed hand-off. */
    max_failure_rate: z.number().min(0).max(100).nullable(),
  })
  .strict();

export const rolloutStates = ['running', 'promoted', 'rolled_back'] as const;
export const rolloutEndedReasons = ['promoted', 'rolled_back', 'auto_rollback'] as const;

export const rolloutSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  plan_id: idSchema,
  /** The version the rest keep: the plan's published version when the rollout started. */
  base_version: versionSchema,
  /** The version put before the share and the pinned contacts. */
  candidate_version: versionSchema,
  share: rolloutShareSchema,
  pinned: z.array(z.string()),
  auto_rollback: rolloutAutoRollbackSchema.nullable(),
  state: z.enum(rolloutStates),
  ended_reason: z.enum(rolloutEndedReasons).nullable(),
  /** Why an automatic rollback happened, in words a person reads. */
  ended_note: z.string().nullable(),
  started_time: timestampSchema,
  started_by: idSchema.nullable(),
  /** Who started it, by name (null once that user is removed, or when the server did). */
  started_by_name: z.string().nullable(),
  ended_time: timestampSchema.nullable(),
  ended_by: idSchema.nullable(),
  ended_by_name: z.string().nullable(),
});
export type Rollout = z.infer<typeof rolloutSchema>;

/** `POST /visual-plans/:id/publish`'s optional `rollout`: publish the draft to these contacts only. */
export const rolloutStartSchema = z
  .object({
    share: rolloutShareSchema,
    pinned: rolloutPinnedSchema.default([]),
    auto_rollback: rolloutAutoRollbackSchema.nullable().optional(),
  })
  .strict();
export type RolloutStart = z.output<typeof rolloutStartSchema>;

/** `PATCH /visual-plans/:id/rollout`: what is sent changes, the rest stays. */
export const rolloutPatchSchema = z
  .object({
    share: rolloutShareSchema.optional(),
    pinned: rolloutPinnedSchema.optional(),
    auto_rollback: rolloutAutoRollbackSchema.nullable().optional(),
  })
  .strict();
export type RolloutPatch = z.output<typeof rolloutPatchSchema>;

export const rolloutCurrentSchema = z.object({ rollout: rolloutSchema.nullable() });
