import { IconListNumbers } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { countOf, lines, promptSummary, readList, readNumber, readText } from '../core/editor/summary.ts';
import { voiceMenuDescription } from './description.ts';
import { optionsFromPrompt, type PromptOption, sameOptions } from './options-from-prompt.ts';

// A menu without options is refused; a new one starts with option 1 for the user to go on from.
const firstOption: PromptOption = { digits: '1', label: '' };

/** The options the menu's prompt names: its voice text's, else its chat text's. */
function promptOptions(data: Record<string, unknown>): PromptOption[] {
  const voice = optionsFromPrompt(readText(data, 'voice_text'));
  return voice.length > 0 ? voice : optionsFromPrompt(readText(data, 'chat_text'));
}

function optionsOf(data: Record<string, unknown>): PromptOption[] {
  return readList(data, 'options').map((option) => ({ digits: readText(option, 'digits'), label: readText(option, 'label') }));
}

/** The menu's options are still the prompt's: as it named them, as the block came, or none at all. */
function untouched(data: Record<string, unknown>): boolean {
  const options = optionsOf(data);
  if (options.length === 0 || sameOptions(options, [firstOption])) return true;
  return sameOptions(options, promptOptions(data));
}

export const voiceMenuEditor = defineEditor({
  description: voiceMenuDescription,
  icon: IconListNumbers,
  color: 'indigo',
  initialData: { options: [firstOption] },
  // The keys refuse letters as typed; a new option takes the next free key (fields.tsx).
  fieldHints: { 'options.digits': { kind: 'keys' } },
  // "Press 1 for sales, 2 for support" gives the options 1 · Sales and 2 · Support (and their
  // exits), until the person changes an option: what they typed is never overwritten.
  derived: {
    apply(next, previous) {
      const promptChanged = readText(next, 'voice_text') !== readText(previous, 'voice_text') || readText(next, 'chat_text') !== readText(previous, 'chat_text');
      if (!promptChanged || !untouched(previous)) return next;
      const named = promptOptions(next);
      // A prompt that no longer names options gives the menu back its first, empty option.
      const options = named.length > 0 ? named : [firstOption];
      const longest = Math.max(...options.map((option) => option.digits.length));
      const maxDigits = readNumber(next, 'max_digits') ?? 1;
      return { ...next, options, ...(longest > maxDigits ? { max_digits: longest } : {}) };
    },
    filled: (data) => {
      const named = promptOptions(data);
      return named.length > 0 && sameOptions(optionsOf(data), named) ? ['options'] : [];
    },
  },
  // An option's label beside its keys: "1 · Sales".
  exitLabel: (exit, data) => {
    const label = readList(data, 'options').find((option) => readText(option, 'digits') === exit && readText(option, 'label') !== '');
    return label === undefined ? undefined : `${exit} · ${readText(label, 'label')}`;
  },
  summary: (data, context) => lines(promptSummary(data, context), countOf(voiceMenuDescription, context, 'options', readList(data, 'options').length)),
});
