import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkUnique } from '../core/fields.ts';
import { recordingDescription } from './description.ts';

/** Spec sections 5 and 9: lists of 1 to 3 items, a summary of at most 250 characters, at most 5 analyses. */
const listAnalysis = <K extends string>(kind: K) =>
  z.strictObject({ kind: z.literal(kind), items: z.array(z.string().trim().min(1).max(200)).min(1).max(3) });

export const analysisSchema = z.discriminatedUnion('kind', [
  listAnalysis('sentiment'),
  listAnalysis('topics'),
  listAnalysis('keywords'),
  listAnalysis('questions'),
  z.strictObject({ kind: z.literal('summary'), max_length: z.number().int().min(1).max(250).default(250) }),
]);

export const recordingBlock = defineBlock(
  recordingDescription,
  z
    .strictObject({
      analyses: z.array(analysisSchema).max(5).default([]),
      min_duration_s: z.number().int().min(0).max(86_400).default(0),
      /** Share of sessions analysed, 0 to 100. */
      percentage: z.number().int().min(0).max(100).default(100),
      format: z.enum(['wav', 'mp3']).default('wav'),
      anonymization: z.boolean().default(false),
    })
    .superRefine((data, ctx) => checkUnique(data.analyses, (analysis) => analysis.kind, 'kind', 'analyses', ctx)),
);
