import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const dateRangeBlock = defineBlock({
  type: 'date_range',
  schema: z.strictObject({ date_range_id: referenceId() }),
  exits: ['in_hours', 'out_of_hours', 'holiday'],
  references: [{ path: 'date_range_id', kind: 'date_range' }],
  texts: { en, pt },
});
