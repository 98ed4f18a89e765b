import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { languageChoice, templateText } from '../core/fields.ts';
import { chatbotDescription } from './description.ts';

export const chatbotBlock = defineBlock(
  chatbotDescription,
  z.strictObject({
    /** The tenant's AI integrations: OpenAI, or the second provider (its `sippulse_ai_key`). */
    provider: z.enum(['openai', 'sippulse']).default('openai'),
    assistant_id: z.string().max(200).default(''),
    agent_id: z.string().max(200).default(''),
    initial_text: templateText(2_000),
    additional_instructions: templateText(8_000),
    /** Caller turns before the block takes `done` on its own. */
    max_turns: z.number().int().min(1).max(100).default(10),
    /** On a call: what it speaks and hears, when not the plan's language. */
    language: languageChoice(),
  }),
);
