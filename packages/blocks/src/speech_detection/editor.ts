import { IconMicrophone } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, listed, promptSummary, readList, readText } from '../core/editor/summary.ts';
import { speechDetectionDescription } from './description.ts';

export const speechDetectionEditor = defineEditor({
  description: speechDetectionDescription,
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
