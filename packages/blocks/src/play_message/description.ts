import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const playMessageDescription = describeBlock({
  type: 'play_message',
  exits: ['next'],
  references: [{ path: 'audio_id', kind: 'audio' }],
  texts: { en, pt },
});
