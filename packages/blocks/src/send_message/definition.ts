import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { templateText } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const sendMessageBlock = defineBlock({
  type: 'send_message',
  schema: z.strictObject({
    channel: z.enum(['sms', 'whatsapp']).default('sms'),
    to: z.string().max(200).default('{{caller}}'),
    text: templateText(1_600),
  }),
  exits: ['sent', 'failed'],
  texts: { en, pt },
});
