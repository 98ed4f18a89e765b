import { z } from 'zod';
import { chatCustomerSchema } from './customer.ts';
import { idSchema, timestampSchema } from './common.ts';
import { conversationMessageAttachmentSchema } from './conversation.ts';

/**
 * Call reports (spec section 3, "Call report"): what a session becomes when it ends. The value
 * lists are the engine's (packages/engine/src/session.ts); the server checks at compile time that
 * the two agree, so the console can use these without loading the engine.
 */
export const reportChannels = ['voice', 'chat'] as const;
export const reportProviders = ['twilio', 'asterisk', 'whatsapp', 'webchat', 'simulator'] as const;
export const reportDirections = ['inbound', 'outbound'] as const;
export const reportDispositions = ['routed', 'retained', 'abandoned', 'failed', 'expired', 'missed'] as const;
/** Spec section 3's dial statuses, and `failed` for what that list has no word for. */
export const reportDialStatuses = ['answer', 'busy', 'cancel', 'dont_call', 'no_answer', 'invalid_args', 'failed'] as const;
export type ReportDialStatus = (typeof reportDialStatuses)[number];
export const reportHangupCauses = ['normal_clearing', 'busy', 'rejected', 'caller_hangup', 'session_timeout', 'engine_error', 'end_not_received', 'resolved'] as const;

/** How far a WhatsApp message got (Meta's statuses; `accepted`: Meta answered its id, no status yet). */
export const whatsappMessageStatuses = ['accepted', 'sent', 'delivered', 'read', 'failed'] as const;
export type WhatsappMessageStatus = (typeof whatsappMessageStatuses)[number];

/** A WhatsApp message the session sent the customer, as Meta last reported it (docs/channels-whatsapp.md, "Delivery statuses"). */
export const reportWhatsappMessageSchema = z.object({
  id: z.string().describe("Meta's message id (wamid)"),
  status: z.enum(whatsappMessageStatuses),
  /** Meta's error of a failed message, `<code> <title>`; null otherwise. */
  error: z.string().nullable(),
  sent_time: timestampSchema,
});
export type ReportWhatsappMessage = z.infer<typeof reportWhatsappMessageSchema>;

/** A block the session entered: when, and the exit it left by (null where it ended). */
export const reportNodeSchema = z.object({
  plan_id: z.number().int(),
  node_id: z.string(),
  type: z.string(),
  at: timestampSchema,
  exit: z.string().nullable(),
  /** Why the block failed or left a message unsent (`outside_customer_window`, `template_parameter_mismatch`…); absent when all went well. */
  reason: z.string().optional(),
});

/** Keys pressed at a voice menu (or a chat reply matched to a menu option). */
export const reportDigitsSchema = z.object({
  plan_id: z.number().int(),
  node_id: z.string(),
  digits: z.string(),
  at: timestampSchema,
});

/** A plan the session entered through `call_plan` (docs/rollouts.md, "`call_plan`"). */
export const callReportCalledPlanSchema = z.object({
  plan_id: z.number().int(),
  /** Its name when the version the session ran was published (as `plan_name` is the report's plan's name then); null for a plan no longer kept. */
  plan_name: z.string().nullable(),
  plan_version: z.number().int(),
  /** The first goal the session reached once it had entered this plan. */
  goal: z.string().nullable(),
});
export type CallReportCalledPlan = z.infer<typeof callReportCalledPlanSchema>;

export const callReportSchema = z.object({
  id: idSchema,
  tenant_id: idSchema,
  session_id: z.string(),
  plan_id: z.number().int(),
  plan_name: z.string(),
  plan_version: z.number().int(),
  channel: z.enum(reportChannels),
  provider: z.enum(reportProviders),
  direction: z.enum(reportDirections),
  caller: z.string(),
  called: z.string(),
  source_ip: z.string().nullable(),
  protocol: z.string().nullable(),
  /** Where the session was when it ended (the plan it was in, after call_plan). */
  last_node_plan_id: z.number().int().nullable(),
  last_node_id: z.string().nullable(),
  last_node_type: z.string().nullable(),
  nodes: z.array(reportNodeSchema),
  pressed_digits: z.array(reportDigitsSchema),
  hangup_cause: z.enum(reportHangupCauses).nullable(),
  disposition: z.enum(reportDispositions).nullable(),
  dial_status: z.enum(reportDialStatuses).nullable(),
  /** Why the engine stopped the session (docs/engine.md, "Failures"); null when it did not. */
  failure: z
    .object({ code: z.string(), message: z.string(), plan_id: z.number().int().nullable(), node_id: z.string().nullable() })
    .nullable(),
  /** The call's recording and its analyses, when a recording block ran. */
  recording: z
    .object({
      format: z.enum(['wav', 'mp3']),
      url: z.string().nullable(),
      duration_s: z.number().nullable(),
      status: z.enum(['recording', 'recorded', 'analysed', 'failed']),
      results: z.record(z.string(), z.unknown()).nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
  variables: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  /** The name a person gave the first goal block the session reached (docs/rollouts.md, "Goals"); null when it reached none. */
  goal: z.string().nullable(),
  /**
   * The plans the session entered through `call_plan`, in the order it entered them, each at the
   * version it ran (a called plan's own rollout chose it). Absent when it called none.
   */
  called_plans: z.array(callReportCalledPlanSchema).optional(),
  /**
   * Chats a person took over (docs/conversations.md), oldest first: the queue (or the outside
   * desk's destination), who held it, how long the customer waited and was served, the outcome, and
   * what was said with the person. Given by GET /reports and /reports/{id} when the chat had one.
   */
  /** Who the customer of a chat was, as its channel told it (docs/conversations.md); absent when it said nothing. */
  customer: chatCustomerSchema.optional(),
  handoffs: z
    .array(
      z.object({
        conversation_id: idSchema,
        queue: z.object({ id: idSchema, name: z.string() }).nullable(),
        agent: z.object({ id: idSchema, name: z.string() }).nullable(),
        outcome: z.enum(['resolved', 'back_to_plan', 'no_answer', 'busy', 'transferred', 'abandoned']).nullable(),
        wait_s: z.number().int().nonnegative().nullable(),
        handling_s: z.number().int().nonnegative().nullable(),
        messages: z.array(
          z.object({
            author: z.enum(['customer', 'agent', 'bot', 'system', 'note']),
            agent_name: z.string().nullable(),
            text: z.string(),
            /** A file or link sent with the message: shown by name with its link. */
            attachment: conversationMessageAttachmentSchema.nullable(),
            at: timestampSchema,
          }),
        ),
      }),
    )
    .optional(),
  /** The campaign that placed the call (docs/outbound.md); null (or absent) for every other. */
  campaign_id: idSchema.nullable().optional(),
  /**
   * A WhatsApp chat's messages to the customer, oldest first, each with its latest delivery status
   * (sent, delivered, read, failed with Meta's code): an outbound chat's first is its opening
   * message (docs/outbound.md). Given by GET /reports when the chat sent any.
   */
  whatsapp_messages: z.array(reportWhatsappMessageSchema).optional(),
  /** A session of the simulator: left out of lists and counts unless the filter names is_test. */
  is_test: z.boolean(),
  start_time: timestampSchema,
  end_time: timestampSchema,
  duration_s: z.number().int().nonnegative(),
  created_time: timestampSchema,
  updated_time: timestampSchema,
});
export type CallReportRecord = z.infer<typeof callReportSchema>;
