import { IconPhoneOutgoing } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, minutes, readNumber, seconds } from '../core/editor/summary.ts';
import { destinationDescription } from './description.ts';

export const destinationEditor = defineEditor({
  description: destinationDescription,
  icon: IconPhoneOutgoing,
  color: 'teal',
  summary: (data, context) => {
    const timeout = readNumber(data, 'timeout_s');
    const wait = readNumber(data, 'chat_wait_min');
    // Both, since one plan may serve calls and chats: the ring in seconds, the chat's wait in minutes.
    const limits = [timeout !== undefined && seconds(context, timeout), wait !== undefined && minutes(context, wait)].filter((part): part is string => !!part);
    return lines(context.referenceName('destination', readNumber(data, 'destination_id')), limits.join(' · '));
  },
});
