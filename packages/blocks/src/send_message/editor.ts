import { IconMessage } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, excerpt, lines, readText } from '../core/editor/summary.ts';
import { sendMessageDescription } from './description.ts';

export const sendMessageEditor = defineEditor({
  description: sendMessageDescription,
  icon: IconMessage,
  color: 'lime',
  fieldHints: { to: { kind: 'template' } },
  summary: (data, context) =>
    lines(`${choiceLabel(sendMessageDescription, context, readText(data, 'channel'))} → ${readText(data, 'to')}`, excerpt(readText(data, 'text'))),
});
