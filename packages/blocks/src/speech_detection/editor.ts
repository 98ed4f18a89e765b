import { IconMicrophone } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, listed, promptSummary, readList, readText } from '../core/editor/summary.ts';
import { speechDetectionBlock } from './definition.ts';

export const speechDetectionEditor = defineEditor({
  definition: speechDetectionBlock,
  icon: IconMicrophone,
  color: 'violet',
  summary: (data, context) =>
    lines(
      promptSummary(data, context),
      listed(
        readList(data, 'variables').map((variable) => readText(variable, 'name')),
        context,
      ),
    ),
});
