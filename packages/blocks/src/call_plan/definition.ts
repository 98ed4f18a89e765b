import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const callPlanBlock = defineBlock({
  type: 'call_plan',
  schema: z.strictObject({ plan_id: referenceId() }),
  exits: [],
  references: [{ path: 'plan_id', kind: 'plan' }],
  texts: { en, pt },
});
