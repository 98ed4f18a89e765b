import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import { destinationDescription } from './description.ts';

export const destinationBlock = defineBlock(
  destinationDescription,
  z.strictObject({
    destination_id: referenceId(),
    /** Seconds the destination may ring before `no_answer`. */
    timeout_s: z.number().int().min(1).max(600).default(30),
  }),
);
