import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const hangupDescription = describeBlock({
  type: 'hangup',
  exits: [],
  texts: { en, pt },
});
