import { IconCalendarTime } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { readNumber } from '../core/editor/summary.ts';
import { dateRangeDescription } from './description.ts';

export const dateRangeEditor = defineEditor({
  description: dateRangeDescription,
  icon: IconCalendarTime,
  color: 'orange',
  summary: (data, context) => context.referenceName('date_range', readNumber(data, 'date_range_id')) ?? '',
});
