import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { templateText } from '../core/fields.ts';
import { startDescription } from './description.ts';

export const startBlock = defineBlock(
  startDescription,
  z.strictObject({
    /** Gives the session a protocol number (`{{protocol}}`), unique per tenant. */
    generate_protocol: z.boolean().default(false),
    /** Sent when a chat ends. */
    hangup_chat_message: templateText(1_000),
    /** Voice: reject the call without answering it. */
    ignore_call: z.boolean().default(false),
  }),
);
