import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const dateRangeDescription = describeBlock({
  type: 'date_range',
  exits: ['in_hours', 'out_of_hours', 'holiday'],
  references: [{ path: 'date_range_id', kind: 'date_range' }],
  texts: { en, pt },
});
