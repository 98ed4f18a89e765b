import { IconVariable } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { excerpt, lines, listed, readList, readText } from '../core/editor/summary.ts';
import { variableDescription } from './description.ts';

export const variableEditor = defineEditor({
  description: variableDescription,
  icon: IconVariable,
  color: 'grape',
  // `name = value`, the first two assignments on their own lines.
  summary: (data, context) => {
    const assignments = readList(data, 'assignments').map((item) => `${readText(item, 'name')} = ${excerpt(readText(item, 'value'), 40)}`);
    return assignments.length <= 2 ? lines(...assignments) : lines(assignments[0], listed(assignments.slice(1), context, 1));
  },
});
