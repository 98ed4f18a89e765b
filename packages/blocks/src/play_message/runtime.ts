import { defineRuntime } from '../core/define.ts';
import { chatPromptText, compilePrompt, playPrompt } from '../core/prompt.ts';
import { playMessageBlock } from './definition.ts';

export const playMessageRuntime = defineRuntime(playMessageBlock, {
  compile: compilePrompt,
  async enter(turn, node) {
    if (turn.session.channel === 'voice') {
      await playPrompt(turn, node.config);
    } else {
      const text = chatPromptText(turn, node.config);
      if (text.trim() !== '') turn.emit({ type: 'reply', text });
    }
    return { exit: 'next' };
  },
});
