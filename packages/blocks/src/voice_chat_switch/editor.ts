import { IconArrowsSplit } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { voiceChatSwitchDescription } from './description.ts';

export const voiceChatSwitchEditor = defineEditor({
  description: voiceChatSwitchDescription,
  icon: IconArrowsSplit,
  color: 'gray',
  // Nothing to set: its two exits say it all.
  summary: () => '',
});
