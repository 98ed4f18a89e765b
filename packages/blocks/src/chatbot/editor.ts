import { IconRobot } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, excerpt, lines, readText } from '../core/editor/summary.ts';
import { chatbotDescription } from './description.ts';

export const chatbotEditor = defineEditor({
  description: chatbotDescription,
  icon: IconRobot,
  color: 'pink',
  summary: (data, context) =>
    lines(
      [choiceLabel(chatbotDescription, context, readText(data, 'provider')), readText(data, 'assistant_id') || readText(data, 'agent_id')].filter(Boolean).join(' · '),
      excerpt(readText(data, 'initial_text')),
    ),
});
