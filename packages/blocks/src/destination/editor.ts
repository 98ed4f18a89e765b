import { IconPhoneOutgoing } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { lines, readNumber, seconds } from '../core/editor/summary.ts';
import { destinationDescription } from './description.ts';

export const destinationEditor = defineEditor({
  description: destinationDescription,
  icon: IconPhoneOutgoing,
  color: 'teal',
  summary: (data, context) => {
    const timeout = readNumber(data, 'timeout_s');
    return lines(context.referenceName('destination', readNumber(data, 'destination_id')), timeout !== undefined && seconds(context, timeout));
  },
});
