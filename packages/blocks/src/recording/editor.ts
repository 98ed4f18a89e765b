import { IconPlayerRecord } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, lines, readList, readText } from '../core/editor/summary.ts';
import { recordingBlock } from './definition.ts';

export const recordingEditor = defineEditor({
  definition: recordingBlock,
  icon: IconPlayerRecord,
  color: 'red',
  // The format, and the analyses run when the recording ends.
  summary: (data, context) =>
    lines(
      readText(data, 'format').toUpperCase(),
      readList(data, 'analyses')
        .map((analysis) => choiceLabel(recordingBlock, context, readText(analysis, 'kind')))
        .join(', '),
    ),
});
