import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { hangupDescription } from './description.ts';

export const hangupBlock = defineBlock(
  hangupDescription,
  z.strictObject({ cause: z.enum(['normal_clearing', 'busy', 'rejected']).default('normal_clearing') }),
);
