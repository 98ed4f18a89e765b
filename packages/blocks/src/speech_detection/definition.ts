import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkPrompt, checkUnique, fieldHints, promptFields, templateText, variableName } from '../core/fields.ts';
import { speechDetectionDescription } from './description.ts';

export const speechDetectionBlock = defineBlock(
  speechDetectionDescription,
  z
    .strictObject({
      ...promptFields,
      /** What the AI model fills from what the caller said. */
      variables: z
        .array(z.strictObject({ name: variableName(), description: z.string().max(500).default('') }))
        .min(1)
        .max(10),
      max_retries: z.number().int().min(0).max(10).default(2),
      retry_text: templateText(1_000),
      transcription_prompt: z.string().max(1_000).default(''),
      /**
       * BCP 47, for the spoken prompt, the speech heard and its transcription; '' is the plan's.
       * Any tag rather than the voices list's alone: plans saved before the list named others.
       */
      language: z
        .string()
        .regex(/^([A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*)?$/, 'a language tag such as en-US or pt-BR')
        .default('')
        .register(fieldHints, { kind: 'language' }),
    })
    .superRefine((data, ctx) => {
      checkPrompt(data, ctx);
      checkUnique(data.variables, (variable) => variable.name, 'name', 'variables', ctx);
    }),
);
