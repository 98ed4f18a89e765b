import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { valueText, variableName } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const variableBlock = defineBlock({
  type: 'variable',
  schema: z.strictObject({
    /** Applied in order: a later value may read an earlier one. */
    assignments: z.array(z.strictObject({ name: variableName(), value: valueText() })).max(50).default([]),
  }),
  exits: ['next'],
  texts: { en, pt },
});
