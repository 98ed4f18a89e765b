import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const hangupBlock = defineBlock({
  type: 'hangup',
  schema: z.strictObject({ cause: z.enum(['normal_clearing', 'busy', 'rejected']).default('normal_clearing') }),
  exits: [],
  texts: { en, pt },
});
