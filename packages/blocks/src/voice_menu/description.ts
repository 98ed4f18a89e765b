import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

const fixedExits = ['timeout', 'invalid'];

export const voiceMenuDescription = describeBlock({
  type: 'voice_menu',
  exits: { static: fixedExits, of: (data: { options: readonly { digits: string }[] }) => [...data.options.map((option) => option.digits), ...fixedExits] },
  references: [{ path: 'audio_id', kind: 'audio' }],
  waitsForInput: true,
  texts: { en, pt },
});
