import { z } from 'zod';
import { idSchema, storableText, timestampSchema } from './common.ts';
import { callReportSchema, reportDialStatuses } from './report.ts';
import { webhookUrlSchema } from './webhook.ts';

/**
 * One call the plan places (docs/outbound.md): `POST /api/v1/outbound-calls` and
 * `GET /api/v1/outbound-calls/{session_id}`. The session runs the plan as an inbound call does,
 * with `direction: outbound`, once the callee answers.
 */

/** Where an outbound call is: stored, handed to the provider, answered (the plan runs), over. */
export const outboundCallStates = ['queued', 'dialing', 'in_progress', 'ended'] as const;
export type OutboundCallState = (typeof outboundCallStates)[number];

/** Who answered, as machine detection tells it; the plan reads it as the variable `answered_by`. */
export const answeredByValues = ['human', 'machine', 'unknown'] as const;
export type AnsweredBy = (typeof answeredByValues)[number];

/** A variable the plan gets: the names a plan may assign (a letter or `_`, then letters, digits, `_`). */
const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a letter or _, then letters, digits or _ (at most 64)');

export const outboundCallCreateSchema = z
  .object({
    /** The tenant's number to call from, in E.164 (its provider places the call). */
    from: z.string().trim().min(1).max(32),
    /** The number to call, in any form a person writes it; read as E.164 with the tenant's country. */
    to: storableText().pipe(z.string().trim().min(1).max(64)),
    /** Variables every block sees like any other; `answered_by` is the server's and is replaced. */
    variables: z.record(variableName, storableText().pipe(z.string().max(2000))).default({}),
    /** Whether to tell a person from an answering machine (`answered_by`). */
    machine_detection: z.boolean().default(false),
    /**
     * Where the outcome is posted, signed as the plan webhook. https, or any address the outbound
     * address policy allows (docs/engine-outbound.md).
     */
    status_url: webhookUrlSchema.optional(),
    /** The plan to run; left out: the voice plan of the number `from`. */
    plan_id: idSchema.optional(),
  })
  .strict()
  .check(
    z.refine((body) => Object.keys(body.variables).length <= 100, { message: 'at most 100 variables', path: ['variables'] }),
  );
export type OutboundCallCreate = z.input<typeof outboundCallCreateSchema>;

/** The answer of the request, at once: the session the call will run as. */
export const outboundCallAcceptedSchema = z.object({ session_id: z.string() });
export type OutboundCallAccepted = z.infer<typeof outboundCallAcceptedSchema>;

export const outboundCallSchema = z.object({
  session_id: z.string(),
  tenant_id: idSchema,
  state: z.enum(outboundCallStates),
  from: z.string(),
  to: z.string(),
  plan_id: idSchema,
  plan_name: z.string(),
  machine_detection: z.boolean(),
  /** The campaign that placed it; null for a call of the API. */
  campaign_id: idSchema.nullable(),
  /** How the dial ended: `answer` once answered, else busy, no_answer, failed, cancel…; null while it rings. */
  dial_status: z.enum(reportDialStatuses).nullable(),
  /** null until machine detection answers (or when it was not asked for). */
  answered_by: z.enum(answeredByValues).nullable(),
  created_time: timestampSchema,
  ended_time: timestampSchema.nullable(),
  /** The call report once the call has ended (an unanswered call has one too). */
  report: callReportSchema.nullable(),
});
export type OutboundCall = z.infer<typeof outboundCallSchema>;

/** What `status_url` receives (event `outbound_call.ended`, signed as the plan webhook: docs/webhooks.md). */
export const outboundCallOutcomeSchema = z.object({
  session_id: z.string(),
  campaign_id: idSchema.nullable(),
  from: z.string(),
  to: z.string(),
  dial_status: z.enum(reportDialStatuses).nullable(),
  answered_by: z.enum(answeredByValues).nullable(),
  report: callReportSchema.nullable(),
});
export type OutboundCallOutcome = z.infer<typeof outboundCallOutcomeSchema>;
