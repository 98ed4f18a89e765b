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
    /** Exits `human`, `machine` and `unknown` (the `answered_by` variable) in place of `next`. */
    answered_by_exits: z.boolean().default(false),
  }),
);
