import { compileTemplate } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { sendMessageBlock } from './definition.ts';

export const sendMessageRuntime = defineRuntime(sendMessageBlock, {
  compile: (data) => ({ channel: data.channel, to: compileTemplate(data.to), text: compileTemplate(data.text) }),
  async enter(turn, node) {
    const { channel } = node.config;
    const to = turn.render(node.config.to).trim();
    const text = turn.render(node.config.text);
    let isSent = false;
    if (to !== '' && text.trim() !== '') {
      try {
        const result = await turn.ports.messaging.send({ tenantId: turn.session.tenant_id, channel, to, from: turn.session.called, text });
        isSent = result.ok;
      } catch {
        isSent = false;
      }
    }
    turn.emit({ type: 'send_message', channel, to, text, status: isSent ? 'sent' : 'failed' });
    return { exit: isSent ? 'sent' : 'failed' };
  },
});
