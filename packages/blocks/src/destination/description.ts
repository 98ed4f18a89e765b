import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const destinationDescription = describeBlock({
  type: 'destination',
  exits: ['answer', 'busy', 'no_answer', 'failed'],
  references: [{ path: 'destination_id', kind: 'destination' }],
  // After an answer the bridge is the call; an exit there is only for what follows it.
  quietExits: ['answer'],
  waitsForInput: true,
  texts: { en, pt },
});
