import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkUnique, customIssue, exitName, jsonPath } from '../core/fields.ts';
import { checkHttpRequest, httpRequestFields } from '../core/http-fields.ts';
import { apiSwitchDescription } from './description.ts';

export const apiSwitchBlock = defineBlock(
  apiSwitchDescription,
  z
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
        if (apiSwitchDescription.staticExits.includes(item.exit)) customIssue(ctx, 'reserved_name', ['cases', index, 'exit'], `'${item.exit}' is a built-in exit`);
      });
    }),
);
