import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const startDescription = describeBlock({
  type: 'start',
  exits: ['next'],
  texts: { en, pt },
});
