import { IconMathFunction } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { listed, readList } from '../core/editor/summary.ts';
import { fxDescription } from './description.ts';

export const fxEditor = defineEditor({
  description: fxDescription,
  icon: IconMathFunction,
  color: 'dark',
  fieldHints: { script: { kind: 'code', language: 'lua' } },
  // A script that runs as written: it returns its first exit.
  initialData: { script: 'return "next"', returns: ['next'] },
  summary: (data, context) =>
    listed(
      readList(data, 'returns').filter((name): name is string => typeof name === 'string'),
      context,
    ),
});
