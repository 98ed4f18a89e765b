import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { templateText } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const chatbotBlock = defineBlock({
  type: 'chatbot',
  schema: z.strictObject({
    /** The tenant's AI integrations: OpenAI, or the second provider (its `sippulse_ai_key`). */
    provider: z.enum(['openai', 'sippulse']).default('openai'),
    assistant_id: z.string().max(200).default(''),
    agent_id: z.string().max(200).default(''),
    initial_text: templateText(2_000),
    additional_instructions: templateText(8_000),
    /** Caller turns before the block takes `done` on its own. */
    max_turns: z.number().int().min(1).max(100).default(10),
  }),
  exits: ['done', 'transfer', 'error'],
  // Off, the server has no key for it: the block would take its error exit (ai_key_not_found).
  settingGates: [{ path: 'provider', option: 'sippulse', setting: 'feature_second_ai_provider' }],
  waitsForInput: true,
  texts: { en, pt },
});
