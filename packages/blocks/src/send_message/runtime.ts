import { compileTemplate, type MessagingResult } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { compileTemplateChoice, sendTemplate } from '../core/template-send.ts';
import { sendMessageBlock } from './definition.ts';

export const sendMessageRuntime = defineRuntime(sendMessageBlock, {
  compile: (data) => ({
    channel: data.channel,
    to: compileTemplate(data.to),
    text: compileTemplate(data.text),
    fallback: data.channel === 'whatsapp' && data.fallback_template_name !== '' ? compileTemplateChoice(data.fallback_template_name, data.fallback_language, data.fallback_parameters) : null,
  }),
  async enter(turn, node) {
    const { channel, fallback } = node.config;
    const to = turn.render(node.config.to).trim();
    const text = turn.render(node.config.text);
    let result: MessagingResult = { ok: false, reason: to === '' ? 'no_recipient' : 'empty_text' };
    if (to !== '' && text.trim() !== '') {
      try {
        result = await turn.ports.messaging.send({ tenantId: turn.session.tenant_id, channel, to, from: turn.session.called, text, at: turn.now });
      } catch {
        result = { ok: false, reason: 'error' };
      }
    }
    // Outside the recipient's window only a template reaches them: the block's fallback, when it has one.
    const usesFallback = !result.ok && result.reason === 'outside_customer_window' && fallback !== null;
    if (usesFallback) result = await sendTemplate(turn, fallback, to);
    const isSent = result.ok;
    if (!result.ok) turn.noteReason(result.reason);
    turn.emit({
      type: 'send_message',
      channel,
      to,
      text,
      status: isSent ? 'sent' : 'failed',
      ...(!result.ok && { reason: result.reason }),
      ...(usesFallback && { template: fallback.template }),
    });
    return { exit: isSent ? 'sent' : 'failed' };
  },
});
