import { compileTemplate } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { sendDtmfBlock } from './definition.ts';

export const sendDtmfRuntime = defineRuntime(sendDtmfBlock, {
  compile: (data) => compileTemplate(data.digits),
  enter(turn, node) {
    if (turn.session.channel === 'voice') {
      // A variable may hold anything: only what a keypad can send goes out.
      const digits = turn.render(node.config).replace(/[^0-9*#wW]/g, '').toLowerCase();
      if (digits !== '') turn.emit({ type: 'send_dtmf', digits });
    }
    return { exit: 'next' };
  },
});
