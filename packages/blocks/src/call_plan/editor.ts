import { IconArrowForwardUp } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { readNumber } from '../core/editor/summary.ts';
import { callPlanDescription } from './description.ts';

export const callPlanEditor = defineEditor({
  description: callPlanDescription,
  icon: IconArrowForwardUp,
  color: 'indigo',
  summary: (data, context) => context.referenceName('plan', readNumber(data, 'plan_id')) ?? '',
});
