import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const variableDescription = describeBlock({
  type: 'variable',
  exits: ['next'],
  texts: { en, pt },
});
