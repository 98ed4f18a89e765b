import { IconPhoneOff } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { choiceLabel, readText } from '../core/editor/summary.ts';
import { hangupDescription } from './description.ts';

export const hangupEditor = defineEditor({
  description: hangupDescription,
  icon: IconPhoneOff,
  color: 'red',
  summary: (data, context) => choiceLabel(hangupDescription, context, readText(data, 'cause')),
});
