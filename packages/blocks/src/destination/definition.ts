import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const destinationBlock = defineBlock({
  type: 'destination',
  schema: z.strictObject({
    destination_id: referenceId(),
    /** Seconds the destination may ring before `no_answer`. */
    timeout_s: z.number().int().min(1).max(600).default(30),
  }),
  exits: ['answer', 'busy', 'no_answer', 'failed'],
  references: [{ path: 'destination_id', kind: 'destination' }],
  // After an answer the bridge is the call; an exit there is only for what follows it.
  quietExits: ['answer'],
  waitsForInput: true,
  texts: { en, pt },
});
