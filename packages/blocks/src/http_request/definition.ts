import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { jsonPath, variableName } from '../core/fields.ts';
import { checkHttpRequest, httpRequestFields } from '../core/http-fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const httpRequestBlock = defineBlock({
  type: 'http_request',
  schema: z
    .strictObject({
      ...httpRequestFields,
      /** Values of the JSON answer to keep as session variables. */
      save: z.array(z.strictObject({ variable: variableName(), path: jsonPath() })).max(20).default([]),
    })
    .superRefine(checkHttpRequest),
  exits: ['success', 'error'],
  texts: { en, pt },
});
