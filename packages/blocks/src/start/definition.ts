import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { templateText } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const startBlock = defineBlock({
  type: 'start',
  schema: z.strictObject({
    /** Gives the session a protocol number (`{{protocol}}`), unique per tenant. */
    generate_protocol: z.boolean().default(false),
    /** Sent when a chat ends. */
    hangup_chat_message: templateText(1_000),
    /** Voice: reject the call without answering it. */
    ignore_call: z.boolean().default(false),
  }),
  exits: ['next'],
  texts: { en, pt },
});
