import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const voiceChatSwitchBlock = defineBlock({
  type: 'voice_chat_switch',
  schema: z.strictObject({}),
  exits: ['voice', 'chat'],
  texts: { en, pt },
});
