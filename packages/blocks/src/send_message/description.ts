import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const sendMessageDescription = describeBlock({
  type: 'send_message',
  exits: ['sent', 'failed'],
  texts: { en, pt },
});
