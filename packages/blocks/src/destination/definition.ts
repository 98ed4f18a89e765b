import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import { DESTINATION_CHAT_WAIT_DEFAULT_MIN, DESTINATION_CHAT_WAIT_MAX_MIN } from './chat-wait.ts';
import { destinationDescription } from './description.ts';

export const destinationBlock = defineBlock(
  destinationDescription,
  z.strictObject({
    destination_id: referenceId(),
    /** A call: seconds the destination may ring before `no_answer`; a chat desk's URL: seconds to get its answer. */
    timeout_s: z.number().int().min(1).max(600).default(30),
    /**
     * A chat in a queue: minutes it may wait for an agent before `no_answer`. Chat customers wait
     * minutes, not a phone's ring; a working day at most, since a parked chat has no other timeout.
     */
    chat_wait_min: z.number().int().min(1).max(DESTINATION_CHAT_WAIT_MAX_MIN).default(DESTINATION_CHAT_WAIT_DEFAULT_MIN),
  }),
);
