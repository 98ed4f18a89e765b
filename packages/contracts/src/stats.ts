import { z } from 'zod';
import { rolloutAutoRollbackEventSchema } from './rollout-results.ts';
import { idSchema, timestampSchema } from './common.ts';
import { LIVE_SESSIONS_LIMIT } from './live-limit.ts';
import { campaignProgressSchema } from './campaigns.ts';
import { reportChannels, reportDirections, reportDispositions, reportHangupCauses, reportProviders } from './report.ts';

/**
 * The statistics API (`/api/v1/stats/...`, issue 17) and the dashboard's live feed. The period
 * figures come from rollups kept as sessions end (docs/api.md, "Statistics"), so their cost does
 * not grow with the history kept; test sessions (the simulator's) are never counted.
 */

/**
 * A period: `from` inclusive, `to` exclusive, ISO timestamps. `tz` is the IANA time zone the
 * console shows days in (days of `daily` start at its midnight). Rollups are hourly, so a zone
 * whose offset is not whole hours has its days cut at the hour before its midnight.
 */
export const statsPeriodQuerySchema = z.object({
  from: timestampSchema,
  to: timestampSchema,
  tz: z.string().min(1).max(64).default('UTC'),
  /** Only these plans (comma-separated ids in the query string). */
  plan_id: z.array(idSchema).optional(),
});
export type StatsPeriodQuery = z.infer<typeof statsPeriodQuerySchema>;

/** Counts by disposition; `calls` counts voice sessions and `chats` chat sessions. */
export const statsFiguresSchema = z.object({
  sessions: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  chats: z.number().int().nonnegative(),
  routed: z.number().int().nonnegative(),
  retained: z.number().int().nonnegative(),
  abandoned: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Sessions closed because their end never arrived (the retention job's `expired`). */
  expired: z.number().int().nonnegative(),
  /** Chats that asked for a person whom nobody took: nobody online or nobody in time (docs/handoff.md, "Outcomes"). */
  missed: z.number().int().nonnegative(),
  /** retained / sessions, 0 to 1; null with no sessions. */
  retention_rate: z.number().min(0).max(1).nullable(),
  /** Mean of duration_s; null with no sessions. */
  average_duration_s: z.number().nonnegative().nullable(),
});
export type StatsFigures = z.infer<typeof statsFiguresSchema>;

/** `GET /stats/summary`: the period's figures. */
export const statsSummarySchema = z.object({ from: timestampSchema, to: timestampSchema, figures: statsFiguresSchema });
export type StatsSummary = z.infer<typeof statsSummarySchema>;

/** `GET /stats/daily`: one entry per day of the period in `tz`, days without sessions included. */
export const statsDailySchema = z.object({
  days: z.array(z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), figures: statsFiguresSchema })),
});
export type StatsDaily = z.infer<typeof statsDailySchema>;

/** `GET /stats/plans`: per plan (the plan sessions started in), most sessions first. */
export const statsPlansSchema = z.object({
  plans: z.array(
    z.object({
      plan_id: z.number().int(),
      plan_name: z.string(),
      figures: statsFiguresSchema,
      /** The plan's staged rollout running now (docs/rollouts.md): the version the rest keep, the new one and its share; null when none runs. */
      rollout: z.object({ base_version: z.number().int(), candidate_version: z.number().int(), share: z.number().int().min(0).max(100) }).nullable(),
    }),
  ),
});
export type StatsPlans = z.infer<typeof statsPlansSchema>;

/**
 * `GET /stats/plans/{id}`: the plan's blocks over the period. `entered`: sessions that entered the
 * block (once per entry); `ended`: sessions whose last block it was (the drop-off heat map);
 * `digits`: keys pressed per voice menu. Blocks of plans reached through call_plan carry their own
 * `plan_id`.
 */
export const statsPlanDetailSchema = z.object({
  plan_id: z.number().int(),
  figures: statsFiguresSchema,
  nodes: z.array(
    z.object({
      plan_id: z.number().int(),
      node_id: z.string(),
      entered: z.number().int().nonnegative(),
      ended: z.number().int().nonnegative(),
    }),
  ),
  digits: z.array(
    z.object({ plan_id: z.number().int(), node_id: z.string(), digits: z.string(), count: z.number().int().nonnegative() }),
  ),
  /** The versions the plan's sessions of the period started on, oldest first (more than one: a rollout ran, or it was published again). */
  versions: z.array(z.number().int()),
});
export type StatsPlanDetail = z.infer<typeof statsPlanDetailSchema>;

/** A session running now, as the dashboard lists it. */
export const activeSessionSchema = z.object({
  session_id: z.string(),
  tenant_id: z.number().int(),
  plan_id: z.number().int(),
  channel: z.enum(reportChannels),
  provider: z.enum(reportProviders),
  direction: z.enum(reportDirections),
  caller: z.string(),
  called: z.string(),
  started_at: timestampSchema,
  /** The block it is in (null before the first). */
  node_id: z.string().nullable(),
  block_type: z.string().nullable(),
});
export type ActiveSession = z.infer<typeof activeSessionSchema>;

export { LIVE_SESSIONS_LIMIT };

/**
 * `GET /stats/live`: the snapshot the live feed starts from. `active`: the `LIVE_SESSIONS_LIMIT`
 * most recently started running sessions, oldest first; `active_total` counts every running one,
 * `active_calls` those of them on the voice channel (the others are chats). `new_per_second`:
 * sessions started over the last `window_s` seconds divided by it.
 */
export const statsLiveSchema = z.object({
  at: timestampSchema,
  active: z.array(activeSessionSchema).max(LIVE_SESSIONS_LIMIT),
  active_total: z.number().int().nonnegative(),
  active_calls: z.number().int().nonnegative(),
  window_s: z.number().int().positive(),
  new_per_second: z.number().nonnegative(),
});
export type StatsLive = z.infer<typeof statsLiveSchema>;

/**
 * `GET /stats/live/events`: Server-Sent Events (`text/event-stream`), one `data:` line of JSON per
 * event, `event:` naming its type; a `: ping` comment every 15 s keeps proxies from closing it.
 * Events of every instance (the instance bus), test sessions left out, the caller's tenant only
 * (the administrator's: every tenant, or `X-Tenant-Id`'s).
 */
export const liveStatsEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session.started'), session: activeSessionSchema }),
  z.object({ type: z.literal('node.entered'), session_id: z.string(), node_id: z.string(), block_type: z.string(), at: timestampSchema }),
  z.object({
    type: z.literal('session.ended'),
    session_id: z.string(),
    /** So that the counts by channel stay right when the session is not among those listed. */
    channel: z.enum(reportChannels),
    disposition: z.enum(reportDispositions).nullable(),
    hangup_cause: z.enum(reportHangupCauses).nullable(),
    at: timestampSchema,
  }),
  /** A campaign's counts changed (a call placed or ended, a control used): at most one a second per campaign. */
  z.object({ type: z.literal('campaign.progress'), progress: campaignProgressSchema, at: timestampSchema }),
  /** A rollout's automatic rule rolled it back (docs/rollouts.md, "Automatic rollback"). */
  rolloutAutoRollbackEventSchema,
]);
export type LiveStatsEvent = z.infer<typeof liveStatsEventSchema>;

/**
 * `GET /stats/live/events?only=`: one kind of event only, for a reader that needs no more (the
 * console follows `rollouts` on every screen to tell of an automatic rollback, not every block
 * every session enters); all of them when left out.
 */
export const liveEventKinds = ['sessions', 'campaigns', 'rollouts'] as const;
export type LiveEventKind = (typeof liveEventKinds)[number];
export const statsLiveEventsQuerySchema = z.object({ only: z.enum(liveEventKinds).optional() });

/** `GET /stats/system`: the dashboard's system status. Sizes in bytes. */
export const statsSystemSchema = z.object({
  server: z.object({ status: z.literal('ok'), version: z.string(), uptime_s: z.number().nonnegative() }),
  database: z.object({
    status: z.enum(['ok', 'error']),
    dialect: z.enum(['sqlite', 'postgres']),
    /** Time of a trivial query, in milliseconds. */
    latency_ms: z.number().nonnegative().nullable(),
    size_bytes: z.number().nonnegative().nullable(),
  }),
  disk: z.object({ total_bytes: z.number().nonnegative().nullable(), free_bytes: z.number().nonnegative().nullable() }),
  memory: z.object({ total_bytes: z.number().nonnegative(), free_bytes: z.number().nonnegative(), process_rss_bytes: z.number().nonnegative() }),
  /**
   * Prompts the telephony platform could not play (an Asterisk that cannot fetch PUBLIC_URL, an
   * audio gone or a URL expired): the calls of the last `window_s` seconds with one, and the latest's
   * failure message (its URL and the reason).
   */
  prompts: z.object({
    window_s: z.number().int().positive(),
    unplayable_calls: z.number().int().nonnegative(),
    last: z.object({ session_id: z.string(), at: z.string(), message: z.string() }).nullable(),
  }),
  /**
   * Calls and chats the licence refused (its concurrent sessions were all in use; the caller heard
   * that the lines are busy): how many in the last `window_s` seconds, and when the latest was.
   */
  refusals: z.object({
    window_s: z.number().int().positive(),
    refused_sessions: z.number().int().nonnegative(),
    last_at: z.string().nullable(),
  }),
});
export type StatsSystem = z.infer<typeof statsSystemSchema>;

/** A group of hand-offs over the period (docs/handoff.md, "Outcomes"), per queue or per agent. */
const handOffFiguresSchema = z.object({
  /** Chats handed to it (per agent: taken by them, or transferred to them). */
  handoffs: z.number().int().nonnegative(),
  /** Taken by a person. */
  taken: z.number().int().nonnegative(),
  /** Resolved by the person, or given back to the plan. */
  resolved: z.number().int().nonnegative(),
  back_to_plan: z.number().int().nonnegative(),
  /** Nobody online (`busy`) or nobody in time (`no_answer`). */
  missed: z.number().int().nonnegative(),
  /** The customer left while waiting. */
  abandoned: z.number().int().nonnegative(),
  /** Waiting or held now. */
  waiting_now: z.number().int().nonnegative(),
  open_now: z.number().int().nonnegative(),
  /** Until taken, or until closed untaken, of the hand-offs that waited (not `busy`); null with none. */
  average_wait_s: z.number().nonnegative().nullable(),
  /** The longest of those, and of the chats waiting now (still counting). */
  longest_wait_s: z.number().int().nonnegative().nullable(),
  /** Taken until closed, of the closed hand-offs a person took; null with none. */
  average_handling_s: z.number().nonnegative().nullable(),
});
export type HandOffFigures = z.infer<typeof handOffFiguresSchema>;

/**
 * `GET /stats/handoffs`: the chats handed to people over the period (those that reached a queue
 * in it), per queue and per agent, by name, and what is waiting or held now. `at`: when it was
 * counted, so that a screen can count the waits on from it.
 */
export const statsHandOffsSchema = z.object({
  at: timestampSchema,
  totals: handOffFiguresSchema,
  queues: z.array(z.object({ id: idSchema, name: z.string(), figures: handOffFiguresSchema })),
  agents: z.array(z.object({ id: idSchema, name: z.string(), figures: handOffFiguresSchema })),
});
export type StatsHandOffs = z.infer<typeof statsHandOffsSchema>;
