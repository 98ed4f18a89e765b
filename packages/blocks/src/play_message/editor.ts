import { IconVolume } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { promptSummary } from '../core/editor/summary.ts';
import { playMessageBlock } from './definition.ts';

export const playMessageEditor = defineEditor({
  definition: playMessageBlock,
  icon: IconVolume,
  color: 'blue',
  summary: promptSummary,
});
