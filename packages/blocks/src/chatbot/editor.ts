import { IconRobot } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, excerpt, lines, readText } from '../core/editor/summary.ts';
import { chatbotBlock } from './definition.ts';

export const chatbotEditor = defineEditor({
  definition: chatbotBlock,
  icon: IconRobot,
  color: 'pink',
  summary: (data, context) =>
    lines(
      [choiceLabel(chatbotBlock, context, readText(data, 'provider')), readText(data, 'assistant_id') || readText(data, 'agent_id')].filter(Boolean).join(' · '),
      excerpt(readText(data, 'initial_text')),
    ),
});
