import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const voiceChatSwitchDescription = describeBlock({
  type: 'voice_chat_switch',
  exits: ['voice', 'chat'],
  texts: { en, pt },
});
