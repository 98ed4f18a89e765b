import { IconDialpad } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { readText } from '../core/editor/summary.ts';
import { sendDtmfDescription } from './description.ts';

export const sendDtmfEditor = defineEditor({
  description: sendDtmfDescription,
  icon: IconDialpad,
  color: 'gray',
  // Digits may hold `{{name}}` for digits kept in a variable.
  fieldHints: { digits: { kind: 'template' } },
  summary: (data) => readText(data, 'digits'),
});
