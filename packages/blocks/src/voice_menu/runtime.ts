import { compileTemplate, type Outcome, type RuntimeNode, type Template, type Turn } from '@voxplan/engine';
import { defineRuntime } from '../core/define.ts';
import { type CompiledPrompt, chatPromptText, compilePrompt, playPrompt } from '../core/prompt.ts';
import { voiceMenuBlock } from './definition.ts';

interface Menu {
  prompt: CompiledPrompt;
  options: Array<{ digits: string; label: string }>;
  maxDigits: number;
  timeoutS: number;
  maxRetries: number;
  invalidText: Template;
}

interface MenuState {
  /** Failed attempts so far (no key, or keys no option has). */
  failures: number;
}

/** A promise only when the prompt looks an audio up (playPrompt). */
function ask(turn: Turn, menu: Menu, afterInvalid: boolean): Promise<Outcome> | Outcome {
  const invalid = afterInvalid ? turn.render(menu.invalidText).trim() : '';
  if (turn.session.channel === 'voice') {
    if (invalid !== '') turn.emit({ type: 'say', text: invalid, ...(menu.prompt.language && { language: menu.prompt.language }) });
    const played = playPrompt(turn, menu.prompt);
    return played ? played.then(() => gather(turn, menu)) : gather(turn, menu);
  } else {
    if (invalid !== '') turn.emit({ type: 'reply', text: invalid });
    turn.emit({
      type: 'reply',
      text: chatPromptText(turn, menu.prompt),
      options: menu.options.map((option) => ({ id: option.digits, label: option.label || option.digits })),
    });
  }
  return { wait: true };
}

function gather(turn: Turn, menu: Menu): Outcome {
  const language = menu.prompt.language;
  turn.emit({ type: 'gather', input: 'dtmf', timeout_s: menu.timeoutS, max_digits: menu.maxDigits, ...(language && { language }) });
  return { wait: true };
}

/** After `max_retries` more attempts, a menu gives up by the exit of its last failure. */
function retry(turn: Turn, node: RuntimeNode<Menu>, failure: 'timeout' | 'invalid'): Promise<Outcome> | Outcome {
  const failures = ((turn.state as MenuState | null)?.failures ?? 0) + 1;
  if (failures > node.config.maxRetries) return { exit: failure };
  turn.setState({ failures } satisfies MenuState);
  return ask(turn, node.config, failure === 'invalid');
}

/** A chat reply picks an option by its digits (a button's id) or by its label. */
function chosenOption(menu: Menu, text: string) {
  const reply = text.trim();
  const lower = reply.toLowerCase();
  return menu.options.find((option) => option.digits === reply || (option.label !== '' && option.label.toLowerCase() === lower));
}

export const voiceMenuRuntime = defineRuntime(voiceMenuBlock, {
  compile: (data): Menu => ({
    prompt: compilePrompt(data),
    options: data.options,
    maxDigits: data.max_digits,
    timeoutS: data.timeout_s,
    maxRetries: data.max_retries,
    invalidText: compileTemplate(data.invalid_text),
  }),
  enter: (turn, node) => ask(turn, node.config, false),
  resume(turn, node, event) {
    const channel = turn.session.channel;
    if (channel === 'voice' && event.type === 'digits') {
      if (event.digits === '') return retry(turn, node, 'timeout');
      turn.recordDigits(event.digits);
      const option = node.config.options.find((item) => item.digits === event.digits);
      return option ? { exit: option.digits } : retry(turn, node, 'invalid');
    }
    if (channel === 'voice' && event.type === 'timeout') return retry(turn, node, 'timeout');
    if (channel === 'chat' && event.type === 'message') {
      turn.recordInput(event.text);
      const option = chosenOption(node.config, event.text);
      if (!option) return retry(turn, node, 'invalid');
      turn.recordDigits(option.digits);
      return { exit: option.digits };
    }
    return undefined;
  },
});
