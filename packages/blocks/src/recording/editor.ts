import { IconPlayerRecord } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, lines, readList, readText } from '../core/editor/summary.ts';
import { recordingDescription } from './description.ts';

export const recordingEditor = defineEditor({
  description: recordingDescription,
  icon: IconPlayerRecord,
  color: 'red',
  // The format, and the analyses run when the recording ends.
  summary: (data, context) =>
    lines(
      readText(data, 'format').toUpperCase(),
      readList(data, 'analyses')
        .map((analysis) => choiceLabel(recordingDescription, context, readText(analysis, 'kind')))
        .join(', '),
    ),
});
