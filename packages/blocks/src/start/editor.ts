import { IconPlayerPlay } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, read } from '../core/editor/summary.ts';
import { fieldLabel } from '../core/editor/texts.ts';
import { startDescription } from './description.ts';

export const startEditor = defineEditor({
  description: startDescription,
  icon: IconPlayerPlay,
  color: 'green',
  // The switches that are on, by their labels: a start block's data is its options.
  summary: (data, context) => {
    const texts = startDescription.texts[context.language];
    return lines(...(['generate_protocol', 'ignore_call'] as const).map((key) => read(data, key) === true && fieldLabel(texts, key, false)));
  },
});
