import { IconVolume } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { promptSummary } from '../core/editor/summary.ts';
import { playMessageDescription } from './description.ts';

export const playMessageEditor = defineEditor({
  description: playMessageDescription,
  icon: IconVolume,
  color: 'blue',
  summary: promptSummary,
});
