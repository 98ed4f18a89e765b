import { z } from 'zod';
import { idSchema, timestampSchema } from './common.ts';
import { whatsappMessageStatuses } from './report.ts';

/**
 * Campaigns (issue 38, docs/campaigns.md): a plan that calls a list of contacts from one of the
 * tenant's numbers, within a schedule (a date range), at a pace, with retries by outcome.
 *
 * The API (members write, guests read):
 * - `/campaigns`: the generic resource (list, count, get, create, patch, delete; filters).
 * - `POST /campaigns/{id}/start|pause|resume|cancel`: the controls, audited; answer the campaign.
 * - `POST /campaigns/{id}/contacts`: multipart, a `mapping` field (JSON, campaignContactMappingSchema)
 *   before the `file` part (the CSV); answers campaignImportResultSchema.
 * - `GET /campaigns/{id}/invalid-rows`: every invalid row, with a filter (limit, skip, order).
 * - `GET /campaigns/{id}/results` (filter on state, last_outcome, phone, name; count at
 *   `/results/count`), and `GET /campaigns/{id}/results/export`: the same rows as CSV.
 * - `GET /campaigns/{id}/progress`: campaignProgressSchema; live as `campaign.progress` events of
 *   `GET /stats/live/events`.
 */

export const campaignStatuses = ['draft', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof campaignStatuses)[number];

/** The outcomes that may be tried again, each with its own attempts and delay. */
export const campaignRetryOutcomes = ['busy', 'no_answer', 'failed', 'machine'] as const;
export type CampaignRetryOutcome = (typeof campaignRetryOutcomes)[number];

/**
 * What one attempt ended as: the call's dial status (docs/sessions.md), with `answer` split by
 * machine detection into `answer` (a person, or detection off/unknown) and `machine`.
 * `dont_call`: the number is on the tenant's do-not-call list; it is never dialled.
 */
export const campaignOutcomes = ['answer', 'machine', 'busy', 'no_answer', 'failed', 'cancel', 'invalid_args', 'dont_call'] as const;
export type CampaignOutcome = (typeof campaignOutcomes)[number];

/** Where a contact is: waiting for its (next) attempt, being called now, or finished (its last outcome is final). */
export const campaignContactStates = ['pending', 'in_progress', 'done'] as const;
export type CampaignContactState = (typeof campaignContactStates)[number];

export const campaignLimits = {
  name: 100,
  /** Calls started a second; the provider's own limit may be lower (docs/campaigns.md, "Pacing"). */
  callsPerSecond: { min: 0.1, max: 100 },
  maxConcurrent: { min: 1, max: 1000 },
  attempts: { min: 0, max: 10 },
  /** Minutes before a retry: up to a week. */
  delayMin: { min: 1, max: 7 * 24 * 60 },
  /** A contact list's upload: rows after the header, and bytes. */
  contactRows: 1_000_000,
  contactFileMb: 100,
  /** Columns a list may have, and the length of one field. */
  columns: 100,
  fieldLength: 1000,
  /** Invalid rows the import answers inline (all are stored: GET /campaigns/{id}/invalid-rows). */
  invalidRowsShown: 100,
} as const;

/** One outcome's retries: up to `attempts` more calls, each at least `delay_min` minutes after the last. */
export const campaignRetrySchema = z
  .object({
    attempts: z.number().int().min(campaignLimits.attempts.min).max(campaignLimits.attempts.max),
    delay_min: z.number().int().min(campaignLimits.delayMin.min).max(campaignLimits.delayMin.max),
  })
  .strict();
export type CampaignRetry = z.infer<typeof campaignRetrySchema>;

export const campaignRetriesSchema = z
  .object({
    busy: campaignRetrySchema,
    no_answer: campaignRetrySchema,
    failed: campaignRetrySchema,
    machine: campaignRetrySchema,
  })
  .strict();
export type CampaignRetries = z.infer<typeof campaignRetriesSchema>;

export const defaultCampaignRetries: CampaignRetries = {
  busy: { attempts: 2, delay_min: 10 },
  no_answer: { attempts: 2, delay_min: 30 },
  failed: { attempts: 1, delay_min: 15 },
  machine: { attempts: 0, delay_min: 60 },
};

export const campaignSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  created_time: timestampSchema,
  updated_time: timestampSchema,
  name: z.string(),
  plan_id: idSchema,
  /** The plan's name, for people (names, never ids). */
  plan_name: z.string(),
  /** The tenant's number the calls come from (a Twilio or Asterisk number). */
  number_id: idSchema,
  /** That number in E.164. */
  number: z.string(),
  /** Calls go out only in hours of this date range (holidays included); null: at any time. */
  date_range_id: idSchema.nullable(),
  date_range_name: z.string().nullable(),
  calls_per_second: z.number(),
  max_concurrent: z.number().int(),
  retries: campaignRetriesSchema,
  machine_detection: z.boolean(),
  status: z.enum(campaignStatuses),
  /** When it was first started, and when it completed or was cancelled. */
  started_time: timestampSchema.nullable(),
  finished_time: timestampSchema.nullable(),
});
export type Campaign = z.infer<typeof campaignSchema>;

const campaignFields = {
  name: z.string().trim().min(1).max(campaignLimits.name),
  plan_id: idSchema,
  number_id: idSchema,
  date_range_id: idSchema.nullable(),
  calls_per_second: z.number().min(campaignLimits.callsPerSecond.min).max(campaignLimits.callsPerSecond.max),
  max_concurrent: z.number().int().min(campaignLimits.maxConcurrent.min).max(campaignLimits.maxConcurrent.max),
  retries: campaignRetriesSchema,
  machine_detection: z.boolean(),
};

/** A new campaign is a draft; its status changes only through start, pause, resume and cancel. */
export const campaignCreateSchema = z
  .object({
    ...campaignFields,
    date_range_id: campaignFields.date_range_id.default(null),
    calls_per_second: campaignFields.calls_per_second.default(1),
    max_concurrent: campaignFields.max_concurrent.default(10),
    retries: campaignFields.retries.default(defaultCampaignRetries),
    machine_detection: campaignFields.machine_detection.default(false),
  })
  .strict();
export type CampaignInput = z.input<typeof campaignCreateSchema>;

/**
 * A change. While the campaign runs or is paused, its plan and number cannot change
 * (`campaign_running`); pacing, retries, schedule and name apply to the next attempts. A completed
 * or cancelled campaign is not edited (`campaign_finished`).
 */
export const campaignUpdateSchema = z.object(campaignFields).partial().strict();
export type CampaignUpdate = z.input<typeof campaignUpdateSchema>;

/** The fields that cannot change once a campaign has started. */
export const campaignFieldsFixedWhenStarted = ['plan_id', 'number_id'] as const;

/** The controls: POST /campaigns/{id}/{action}. */
export const campaignActions = ['start', 'pause', 'resume', 'cancel'] as const;
export type CampaignAction = (typeof campaignActions)[number];

/** From which status each control may be used (else 409 `campaign_status_invalid`). */
export const campaignActionFrom: Record<CampaignAction, readonly CampaignStatus[]> = {
  start: ['draft'],
  pause: ['running'],
  resume: ['paused'],
  cancel: ['draft', 'running', 'paused'],
};

// ---- contacts ---------------------------------------------------------------------------------

/** Plan variables a contact list's column may become: the engine's variable names. */
export const campaignVariableNameSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'invalidVariableName');

/**
 * How a CSV's columns are read, by their header names: the phone number (required), the person's
 * name, their IANA time zone, and any other column as a plan variable (`{ "Valor": "amount" }`).
 * Columns not named are ignored.
 */
export const campaignContactMappingSchema = z
  .object({
    phone: z.string().trim().min(1).max(200),
    name: z.string().trim().min(1).max(200).optional(),
    time_zone: z.string().trim().min(1).max(200).optional(),
    variables: z.record(z.string().trim().min(1).max(200), campaignVariableNameSchema).default({}),
    /** The field separator; Brazilian spreadsheets save CSV with `;`. */
    delimiter: z.enum([',', ';', '\t']).default(','),
  })
  .strict();
export type CampaignContactMapping = z.infer<typeof campaignContactMappingSchema>;
export type CampaignContactMappingInput = z.input<typeof campaignContactMappingSchema>;

/** Why a row was not imported. */
export const campaignInvalidReasons = [
  'phone_missing',
  'phone_invalid',
  'time_zone_invalid',
  /** The same number earlier in the list, or already in the campaign. */
  'duplicate',
  /** Unbalanced quotes, or more fields than the header has. */
  'malformed',
  'field_too_long',
] as const;
export type CampaignInvalidReason = (typeof campaignInvalidReasons)[number];

export const campaignInvalidRowSchema = z.object({
  id: idSchema,
  campaign_id: idSchema,
  /** The line of the file the row starts on (the header is line 1). */
  line: z.number().int().positive(),
  reason: z.enum(campaignInvalidReasons),
  /** The phone field as written (or the start of the raw line when it could not be read). */
  value: z.string(),
  created_time: timestampSchema,
});
export type CampaignInvalidRow = z.infer<typeof campaignInvalidRowSchema>;

/** What `POST /campaigns/{id}/contacts` (multipart: a `mapping` JSON field, then `file`) answers. */
export const campaignImportResultSchema = z.object({
  imported: z.number().int().nonnegative(),
  invalid: z.number().int().nonnegative(),
  /** The first invalid rows (up to campaignLimits.invalidRowsShown); all are stored. */
  invalid_rows: z.array(campaignInvalidRowSchema.pick({ line: true, reason: true, value: true })),
});
export type CampaignImportResult = z.infer<typeof campaignImportResultSchema>;

/** One row per contact: who, and how their calls went (`GET /campaigns/{id}/results`, and its CSV export). */
export const campaignResultSchema = z.object({
  id: idSchema,
  campaign_id: idSchema,
  line: z.number().int().positive(),
  phone: z.string().describe('E.164'),
  name: z.string(),
  time_zone: z.string().nullable(),
  variables: z.record(z.string(), z.string()),
  state: z.enum(campaignContactStates),
  last_outcome: z.enum(campaignOutcomes).nullable(),
  attempts: z.number().int().nonnegative(),
  /** The session of the last call (its report: GET /reports?filter={"where":{"session_id":...}}). */
  last_session_id: z.string().nullable(),
  last_attempt_time: timestampSchema.nullable(),
  /** When the next attempt may start (pending contacts); null otherwise. */
  next_attempt_time: timestampSchema.nullable(),
  /**
   * A WhatsApp campaign: the latest delivery status of the last attempt's opening message
   * (docs/outbound.md, "Delivery statuses"): accepted (Meta took it), sent, delivered, read or
   * failed; null for a call, or before any message went.
   */
  message_status: z.enum(whatsappMessageStatuses).nullable(),
  /** Meta's error of a failed message, `<code> <title>` (131026 Message undeliverable); null otherwise. */
  message_error: z.string().nullable(),
});
export type CampaignResult = z.infer<typeof campaignResultSchema>;

/** `GET /campaigns/{id}/progress`, and the live stream's `campaign_progress` event. */
export const campaignProgressSchema = z.object({
  campaign_id: idSchema,
  status: z.enum(campaignStatuses),
  /** Contacts imported. */
  total: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  in_progress: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  /** Done contacts by their last outcome; every outcome is present (0 when none). */
  by_outcome: z.record(z.enum(campaignOutcomes), z.number().int().nonnegative()),
  /** Calls placed so far, retries included. */
  attempts: z.number().int().nonnegative(),
  invalid_rows: z.number().int().nonnegative(),
  /**
   * A WhatsApp campaign's number: the customers it reached outside their window in the last 24
   * hours and Meta's messaging limit (null: unlimited); `frees_at`, when the oldest reach counted
   * leaves the 24 hours. Contacts past the limit wait, pending (docs/outbound.md, "Daily reach").
   * Null for a call campaign.
   */
  reach: z.object({ reached: z.number().int().nonnegative(), limit: z.number().int().positive().nullable(), frees_at: timestampSchema.nullable() }).nullable(),
});
export type CampaignProgress = z.infer<typeof campaignProgressSchema>;
