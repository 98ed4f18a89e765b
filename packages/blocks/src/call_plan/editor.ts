import { IconArrowForwardUp } from '@tabler/icons-react';
import { defineEditor } from '../core/editor/define-editor.ts';
import { readNumber } from '../core/editor/summary.ts';
import { callPlanBlock } from './definition.ts';

export const callPlanEditor = defineEditor({
  definition: callPlanBlock,
  icon: IconArrowForwardUp,
  color: 'indigo',
  summary: (data, context) => context.referenceName('plan', readNumber(data, 'plan_id')) ?? '',
});
