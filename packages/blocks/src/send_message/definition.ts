import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { templateText } from '../core/fields.ts';
import { sendMessageDescription } from './description.ts';

export const sendMessageBlock = defineBlock(
  sendMessageDescription,
  z.strictObject({
    channel: z.enum(['sms', 'whatsapp']).default('sms'),
    to: z.string().max(200).default('{{caller}}'),
    text: templateText(1_600),
  }),
);
