import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkPrompt, promptFields } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const playMessageBlock = defineBlock({
  type: 'play_message',
  schema: z.strictObject(promptFields).superRefine(checkPrompt),
  exits: ['next'],
  references: [{ path: 'audio_id', kind: 'audio' }],
  texts: { en, pt },
});
