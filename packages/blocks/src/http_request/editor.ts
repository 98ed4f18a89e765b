import { IconWorld } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, listed, readList, readText, requestSummary } from '../core/editor/summary.ts';
import { httpRequestDescription } from './description.ts';

export const httpRequestEditor = defineEditor({
  description: httpRequestDescription,
  icon: IconWorld,
  color: 'cyan',
  // The request, and the variables its answer fills.
  summary: (data, context) =>
    lines(
      requestSummary(data),
      listed(
        readList(data, 'save').map((item) => readText(item, 'variable')),
        context,
      ),
    ),
});
