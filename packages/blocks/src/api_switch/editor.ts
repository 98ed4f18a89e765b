import { IconApi } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { countOf, lines, readList, readText, requestSummary } from '../core/editor/summary.ts';
import { apiSwitchBlock } from './definition.ts';

export const apiSwitchEditor = defineEditor({
  definition: apiSwitchBlock,
  icon: IconApi,
  color: 'cyan',
  summary: (data, context) =>
    lines(
      requestSummary(data),
      [readText(data, 'attribute'), countOf(apiSwitchBlock, context, 'cases', readList(data, 'cases').length)].filter(Boolean).join(' · '),
    ),
});
