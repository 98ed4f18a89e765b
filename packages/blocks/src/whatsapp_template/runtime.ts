import type { ReplyOption } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { compileTemplateChoice, sendTemplate, templatePlainText } from '../core/template-send.ts';
import { whatsappTemplateBlock } from './definition.ts';
import { buttonExit } from './description.ts';

/** A button chosen by its exit (a reply option's id, a payload) or by its text, letter case and spaces aside. */
function buttonOf(buttons: readonly string[], answer: string): number {
  const given = answer.trim().toLowerCase();
  return buttons.findIndex((text, index) => given === buttonExit(index) || given === text.trim().toLowerCase());
}

export const whatsappTemplateRuntime = defineRuntime(whatsappTemplateBlock, {
  compile: (data) => ({ ...compileTemplateChoice(data.template_name, data.language, data.parameters), buttons: data.buttons }),
  async enter(turn, node) {
    const { buttons } = node.config;
    // A chat block: a call has nobody to read it (as send_dtmf is skipped on chats).
    if (turn.session.channel === 'voice') return { exit: 'sent' };
    const options: ReplyOption[] = buttons.map((label, index) => ({ id: buttonExit(index), label }));
    const { name, language } = node.config.template;
    if (turn.session.provider === 'whatsapp') {
      // A template may open a conversation: it goes whatever the customer window (the port does not ask it).
      const result = await sendTemplate(turn, node.config, turn.session.caller);
      if (!result.ok) {
        turn.noteReason(result.reason);
        turn.emit({ type: 'template', name, language, text: '', status: 'failed', reason: result.reason });
        return { exit: 'failed' };
      }
      turn.emit({ type: 'template', name, language, text: result.text, ...(options.length > 0 && { options }), status: 'sent' });
    } else {
      // Web chat, the simulator: the template as the text it reads, its buttons as reply options.
      const result = await templatePlainText(turn, node.config);
      if (!result.ok) {
        turn.noteReason(result.reason);
        return { exit: 'failed' };
      }
      turn.emit(options.length > 0 ? { type: 'reply', text: result.text, options } : { type: 'reply', text: result.text });
    }
    return buttons.length === 0 ? { exit: 'sent' } : { wait: true };
  },
  resume(turn, node, event) {
    if (event.type !== 'message') return undefined;
    turn.recordInput(event.text);
    const index = buttonOf(node.config.buttons, event.text);
    // Any other answer goes on by `sent`, its text in {{last_input}}.
    return { exit: index === -1 ? 'sent' : buttonExit(index) };
  },
});
