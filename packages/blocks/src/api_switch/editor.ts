import { IconApi } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { countOf, lines, readList, readText, requestSummary } from '../core/editor/summary.ts';
import { apiSwitchDescription } from './description.ts';

export const apiSwitchEditor = defineEditor({
  description: apiSwitchDescription,
  icon: IconApi,
  color: 'cyan',
  summary: (data, context) =>
    lines(
      requestSummary(data),
      [readText(data, 'attribute'), countOf(apiSwitchDescription, context, 'cases', readList(data, 'cases').length)].filter(Boolean).join(' · '),
    ),
});
