import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkUnique, customIssue, exitName, jsonPath } from '../core/fields.ts';
import { checkHttpRequest, httpRequestFields } from '../core/http-fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

const fixedExits = ['default', 'error'] as const;

export const apiSwitchBlock = defineBlock({
  type: 'api_switch',
  schema: z
    .strictObject({
      ...httpRequestFields,
      /** Where in the JSON answer the value to switch on is. */
      attribute: jsonPath(),
      /** Several cases may lead to the same exit. */
      cases: z.array(z.strictObject({ value: z.string().max(500), exit: exitName() })).max(50).default([]),
      /** Fire and forget: send the request and take `default` at once. */
      async_call: z.boolean().default(false),
    })
    .superRefine((data, ctx) => {
      checkHttpRequest(data, ctx);
      checkUnique(data.cases, (item) => item.value, 'value', 'cases', ctx);
      data.cases.forEach((item, index) => {
        if ((fixedExits as readonly string[]).includes(item.exit)) customIssue(ctx, 'reserved_name', ['cases', index, 'exit'], `'${item.exit}' is a built-in exit`);
      });
    }),
  exits: { static: fixedExits, of: (data) => [...new Set(data.cases.map((item) => item.exit)), ...fixedExits] },
  texts: { en, pt },
});
