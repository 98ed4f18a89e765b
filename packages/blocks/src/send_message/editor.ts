import { IconMessage } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, excerpt, lines, readText } from '../core/editor/summary.ts';
import { sendMessageBlock } from './definition.ts';

export const sendMessageEditor = defineEditor({
  definition: sendMessageBlock,
  icon: IconMessage,
  color: 'lime',
  fieldHints: { to: { kind: 'template' } },
  summary: (data, context) =>
    lines(`${choiceLabel(sendMessageBlock, context, readText(data, 'channel'))} → ${readText(data, 'to')}`, excerpt(readText(data, 'text'))),
});
