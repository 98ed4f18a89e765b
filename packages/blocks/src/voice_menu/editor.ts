import { IconListNumbers } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { countOf, lines, promptSummary, readList, readText } from '../core/editor/summary.ts';
import { voiceMenuDescription } from './description.ts';

export const voiceMenuEditor = defineEditor({
  description: voiceMenuDescription,
  icon: IconListNumbers,
  color: 'indigo',
  // A menu without options is refused; a new one starts with option 1 for the user to go on from.
  initialData: { options: [{ digits: '1', label: '' }] },
  // The keys refuse letters as typed; a new option takes the next free key (fields.tsx).
  fieldHints: { 'options.digits': { kind: 'keys' } },
  // An option's label beside its keys: "1 · Sales".
  exitLabel: (exit, data) => {
    const label = readList(data, 'options').find((option) => readText(option, 'digits') === exit && readText(option, 'label') !== '');
    return label === undefined ? undefined : `${exit} · ${readText(label, 'label')}`;
  },
  summary: (data, context) => lines(promptSummary(data, context), countOf(voiceMenuDescription, context, 'options', readList(data, 'options').length)),
});

