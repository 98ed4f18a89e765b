/**
 * A rollout's results per version (docs/rollouts.md, "Results per version"): the base version and
 * the candidate side by side, counted as the dashboard counts, and their goal rates compared.
 */
import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { rolloutSchema } from './rollout.ts';

export const rolloutResultsQuerySchema = z.object({
  /** A rollout of the plan (its history's); the running one when left out, else the newest. */
  rollout_id: z.coerce.number().int().positive().max(2 ** 31 - 1).optional(),
});

export const versionResultSchema = z.object({
  version: z.number().int(),
  /** Percent of the contacts that meet this version (the candidate's share, the rest for the base). */
  share: z.number().int().min(0).max(100),
  sessions: z.number().int().nonnegative(),
  retained: z.number().int().nonnegative(),
  routed: z.number().int().nonnegative(),
  abandoned: z.number().int().nonnegative(),
  /** Sessions that reached a goal block. */
  converted: z.number().int().nonnegative(),
  /** converted / sessions; null without sessions. */
  goal_rate: z.number().min(0).max(1).nullable(),
  median_duration_ms: z.number().nonnegative().nullable(),
  /** Sessions that ended in an engine error or a failed hand-off. */
  failures: z.number().int().nonnegative(),
  /** Per block of the plan, as the heat map counts: sessions that entered it, and that ended there. */
  drop_off: z.array(z.object({ node_id: z.string(), name: z.string(), type: z.string(), entered: z.number().int().nonnegative(), ended: z.number().int().nonnegative() })),
});
export type VersionResult = z.infer<typeof versionResultSchema>;

export const rolloutComparisonSchema = z.object({
  /** At least 30 sessions per version, with at least 5 converted and 5 not converted in each. */
  enough_data: z.boolean(),
  /** The candidate's goal rate minus the base's; null while either has no session. */
  goal_rate_difference: z.number().min(-1).max(1).nullable(),
  /** 1 minus the two-sided p-value of a two-proportion z-test (0..1); null without enough data. */
  confidence: z.number().min(0).max(1).nullable(),
});

export const rolloutResultsSchema = z.object({
  rollout: rolloutSchema,
  /** The base version first, then the candidate. */
  versions: z.tuple([versionResultSchema, versionResultSchema]),
  comparison: rolloutComparisonSchema,
});
export type RolloutResults = z.infer<typeof rolloutResultsSchema>;

/**
 * Why the automatic rule rolled a rollout back, in figures, so that a reader says it in its own
 * language: the candidate's goal rate worse than the base's (rates 0..1, the test's confidence
 * 0..1), or too many of its sessions failed (`failure_rate` 0..1 against the rule's percent).
 */
export const rolloutRollbackCauseSchema = z.discriminatedUnion('rule', [
  z.object({ rule: z.literal('goal_worse'), candidate_goal_rate: z.number().min(0).max(1), base_goal_rate: z.number().min(0).max(1), confidence: z.number().min(0).max(1) }),
  z.object({ rule: z.literal('max_failure_rate'), failures: z.number().int().nonnegative(), sessions: z.number().int().positive(), failure_rate: z.number().min(0).max(1), max_failure_rate: z.number().min(0).max(100) }),
]);
export type RolloutRollbackCause = z.infer<typeof rolloutRollbackCauseSchema>;

/**
 * On the live feed (`GET /stats/live/events`): a rollout was rolled back by its automatic rule.
 * `note` is the rollout's `ended_note` (in the tenant's language); `cause` says why in figures.
 */
export const rolloutAutoRollbackEventSchema = z.object({
  type: z.literal('rollout.auto_rollback'),
  rollout_id: idSchema,
  plan_id: idSchema,
  plan_name: z.string(),
  base_version: z.number().int(),
  candidate_version: z.number().int(),
  cause: rolloutRollbackCauseSchema,
  note: z.string(),
  at: timestampSchema,
});
export type RolloutAutoRollbackEvent = z.infer<typeof rolloutAutoRollbackEventSchema>;
