import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { valueText, variableName } from '../core/fields.ts';
import { variableDescription } from './description.ts';

export const variableBlock = defineBlock(
  variableDescription,
  z.strictObject({
    /** Applied in order: a later value may read an earlier one. */
    assignments: z.array(z.strictObject({ name: variableName(), value: valueText() })).max(50).default([]),
  }),
);
