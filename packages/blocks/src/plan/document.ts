/**
 * The plan document (blocks.md, "The plan document"): settings, nodes and edges, with the format
 * version it was written in. Documents are migrated to the current format when read.
 */
import { espeakVoiceIds, twilioVoiceSpeaks } from '@voxplan/contracts/voices';
import { z } from 'zod';
import { customIssue, languageChoice } from '../core/fields.ts';
import { DESTINATION_CHAT_WAIT_DEFAULT_MIN } from '../destination/chat-wait.ts';
import { planFormatVersion, planLabelLength } from './format.ts';

export { planFormatVersion, planLabelLength };

export const planSettingsSchema = z
  .strictObject({
  /** Chat: a conversation idle this long ends (with `chat_text`). */
  session_timeout_min: z.number().int().min(1).max(10_080).default(30),
  chat_text: z.string().max(1_000).default(''),
  /** Chat texts follow the voice texts. */
  sync_with_voice_text: z.boolean().default(false),
  /** Receives signed JSON events; empty when none. */
  webhook: z
    .string()
    .trim()
    .max(2_000)
    .refine((url) => url === '' || /^https?:\/\/[^\s]+$/i.test(url), 'must be an http or https URL')
    .default(''),
  /** What the plan's prompts are spoken and heard in; '' is the tenant's language. Absent from plans saved before it. */
  language: languageChoice(),
  /** Twilio's `<Say voice>` (a Polly or Google voice of `language`); '' is the language's first voice of the list. */
  twilio_voice: z.string().max(64).default(''),
  /** The espeak-ng variant the server speaks with (Asterisk, generated audios); '' is espeak-ng's own. */
  tts_voice: z.enum(['', ...espeakVoiceIds]).default(''),
})
  .superRefine((settings, ctx) => {
    // A voice belongs to one language: without one chosen, the tenant's might be another.
    if (settings.twilio_voice !== '' && !twilioVoiceSpeaks(settings.twilio_voice, settings.language)) {
      customIssue(ctx, 'voice_language_mismatch', ['twilio_voice'], `the voice ${settings.twilio_voice} does not speak ${settings.language || "the tenant's language"}`);
    }
  });
export type PlanSettings = z.output<typeof planSettingsSchema>;

/** Node and edge ids: chosen by the editor, unique in the plan. */
const elementId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only');

export const planNodeSchema = z.strictObject({
  id: elementId,
  /** One of the block types; checked against the registry with the data. */
  type: z.string().min(1).max(40),
  /**
   * The name a person gave the block ("Welcome"): shown in place of its type's name wherever the
   * block is named (canvas, issues, test panel, reports, operators' logs). Absent when not named.
   */
  label: z.string().trim().min(1).max(planLabelLength).optional(),
  position: z.strictObject({ x: z.number().finite(), y: z.number().finite() }).default({ x: 0, y: 0 }),
  /** The block's fields; checked against the block's own schema. */
  data: z.unknown().default({}),
});

export const planEdgeSchema = z.strictObject({
  id: elementId,
  source: elementId,
  source_exit: z.string().min(1).max(64),
  target: elementId,
});

// bench:editor opens and edits a plan of 2,000 blocks; four edges a block leave room for menus with many options.
export const planLimits = { maxNodes: 2_000, maxEdges: 8_000 } as const;

/** What a plan version stores: the graph and its settings. */
export const planContentSchema = z.strictObject({
  format_version: z.literal(planFormatVersion),
  settings: planSettingsSchema.default(planSettingsSchema.parse({})),
  nodes: z.array(planNodeSchema).max(planLimits.maxNodes),
  edges: z.array(planEdgeSchema).max(planLimits.maxEdges).default([]),
});
export type PlanContent = z.output<typeof planContentSchema>;
export type PlanNode = z.output<typeof planNodeSchema>;
export type PlanEdge = z.output<typeof planEdgeSchema>;

/**
 * A plan as blocks.md describes it: the content plus who and what it is. The server keeps those
 * in their own columns, so they are optional here; `compilePlan` needs id, tenant, name and version.
 */
export const planDocumentSchema = planContentSchema.extend({
  id: z.number().int().positive().max(2 ** 31 - 1).optional(),
  tenant_id: z.number().int().positive().max(2 ** 31 - 1).optional(),
  name: z.string().max(100).optional(),
  version: z.number().int().min(0).optional(),
  updated_time: z.string().optional(),
  updated_by: z.number().int().nullable().optional(),
});
export type PlanDocument = z.output<typeof planDocumentSchema>;

/**
 * A valid plan document as the schemas parsed it: every node's `data` has its defaults filled
 * in. Plain JSON, fit to store.
 */
export type ValidatedDocument = PlanDocument;

export class PlanFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanFormatError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Steps from each format to the next. Format 0 is the shape before versioning: the same graph
 * without `format_version`, where a node might lack `data` or `position`. Format 1 to 2: a chat
 * in a queue waited the block's `timeout_s` (at most 600 s, the call's ring); it now waits
 * `chat_wait_min`, set to the default 10 minutes, never shorter than before, on every such block.
 */
const migrations: ReadonlyArray<(document: Record<string, unknown>) => Record<string, unknown>> = [
  (document) => ({
    ...document,
    nodes: Array.isArray(document.nodes)
      ? document.nodes.map((node: unknown) => (isRecord(node) ? { position: { x: 0, y: 0 }, data: {}, ...node } : node))
      : document.nodes,
    edges: document.edges ?? [],
    format_version: 1,
  }),
  (document) => ({
    ...document,
    nodes: Array.isArray(document.nodes)
      ? document.nodes.map((node: unknown) =>
          isRecord(node) && node.type === 'destination' && isRecord(node.data) && node.data.chat_wait_min === undefined
            ? { ...node, data: { ...node.data, chat_wait_min: DESTINATION_CHAT_WAIT_DEFAULT_MIN } }
            : node,
        )
      : document.nodes,
    format_version: 2,
  }),
];

/**
 * Brings a stored document to the current format. It does not validate: `validatePlanDocument`
 * (or `readPlanDocument`) does that on the result.
 */
export function migratePlanDocument(raw: unknown): unknown {
  if (!isRecord(raw)) throw new PlanFormatError('a plan document is a JSON object');
  const version = raw.format_version ?? 0;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) throw new PlanFormatError('format_version must be a whole number');
  if (version > planFormatVersion) {
    throw new PlanFormatError(`format_version ${version} is newer than this server understands (${planFormatVersion})`);
  }
  let document = raw;
  for (let step = version; step < planFormatVersion; step++) document = migrations[step]!(document);
  return document;
}
