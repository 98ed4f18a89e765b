import { defineRuntime } from '../core/define.ts';
import { voiceChatSwitchBlock } from './definition.ts';

export const voiceChatSwitchRuntime = defineRuntime(voiceChatSwitchBlock, {
  compile: () => null,
  enter: (turn) => ({ exit: turn.session.channel }),
});
