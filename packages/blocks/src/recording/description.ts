import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const recordingDescription = describeBlock({
  type: 'recording',
  exits: ['next'],
  texts: { en, pt },
});
