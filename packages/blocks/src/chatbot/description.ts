import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const chatbotDescription = describeBlock({
  type: 'chatbot',
  exits: ['done', 'transfer', 'error'],
  errorExit: 'error',
  // Off, the server has no key for it: the block would take its error exit (ai_key_not_found).
  settingGates: [{ path: 'provider', option: 'sippulse', setting: 'feature_second_ai_provider' }],
  waitsForInput: true,
  texts: { en, pt },
});
