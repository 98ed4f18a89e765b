import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { jsonPath, variableName } from '../core/fields.ts';
import { checkHttpRequest, httpRequestFields } from '../core/http-fields.ts';
import { httpRequestDescription } from './description.ts';

export const httpRequestBlock = defineBlock(
  httpRequestDescription,
  z
    .strictObject({
      ...httpRequestFields,
      /** Values of the JSON answer to keep as session variables. */
      save: z.array(z.strictObject({ variable: variableName(), path: jsonPath() })).max(20).default([]),
    })
    .superRefine(checkHttpRequest),
);
