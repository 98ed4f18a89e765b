import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const speechDetectionDescription = describeBlock({
  type: 'speech_detection',
  exits: ['success', 'failed'],
  errorExit: 'failed',
  references: [{ path: 'audio_id', kind: 'audio' }],
  waitsForInput: true,
  texts: { en, pt },
});
