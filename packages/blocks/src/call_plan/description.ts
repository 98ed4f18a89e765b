import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const callPlanDescription = describeBlock({
  type: 'call_plan',
  exits: [],
  references: [{ path: 'plan_id', kind: 'plan' }],
  texts: { en, pt },
});
