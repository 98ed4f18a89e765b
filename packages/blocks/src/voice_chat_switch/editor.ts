import { IconArrowsSplit } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { voiceChatSwitchBlock } from './definition.ts';

export const voiceChatSwitchEditor = defineEditor({
  definition: voiceChatSwitchBlock,
  icon: IconArrowsSplit,
  color: 'gray',
  // Nothing to set: its two exits say it all.
  summary: () => '',
});
