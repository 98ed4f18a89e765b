import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkUnique, customIssue, exitName } from '../core/fields.ts';
import { fxDescription } from './description.ts';

export const fxBlock = defineBlock(
  fxDescription,
  z
    .strictObject({
      /** Lua 5.4; sees `vars`, returns an exit name and optionally a table of variables to set. */
      script: z.string().min(1).max(65_536),
      returns: z.array(exitName()).min(1).max(20),
    })
    .superRefine((data, ctx) => {
      checkUnique(data.returns, (name) => name, '', 'returns', ctx);
      data.returns.forEach((name, index) => {
        if (fxDescription.staticExits.includes(name)) customIssue(ctx, 'reserved_name', ['returns', index], `'${name}' is a built-in exit`);
      });
    }),
);
