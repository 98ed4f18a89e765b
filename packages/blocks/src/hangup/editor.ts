import { IconPhoneOff } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, readText } from '../core/editor/summary.ts';
import { hangupBlock } from './definition.ts';

export const hangupEditor = defineEditor({
  definition: hangupBlock,
  icon: IconPhoneOff,
  color: 'red',
  summary: (data, context) => choiceLabel(hangupBlock, context, readText(data, 'cause')),
});
