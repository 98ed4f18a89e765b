import type { Outcome } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { chatPromptText, compilePrompt, playPrompt } from '../core/prompt.ts';
import { playMessageBlock } from './definition.ts';

export const playMessageRuntime = defineRuntime(playMessageBlock, {
  compile: compilePrompt,
  enter(turn, node) {
    if (turn.session.channel === 'voice') {
      // Spoken at once unless an audio is looked up (playPrompt).
      const played = playPrompt(turn, node.config);
      if (played) return played.then(next);
    } else {
      const text = chatPromptText(turn, node.config);
      if (text.trim() !== '') turn.emit({ type: 'reply', text });
    }
    return next();
  },
});

function next(): Outcome {
  return { exit: 'next' };
}
