import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkUnique, customIssue, exitName } from '../core/fields.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const fxBlock = defineBlock({
  type: 'fx',
  schema: z
    .strictObject({
      /** Lua 5.4; sees `vars`, returns an exit name and optionally a table of variables to set. */
      script: z.string().min(1).max(65_536),
      returns: z.array(exitName()).min(1).max(20),
    })
    .superRefine((data, ctx) => {
      checkUnique(data.returns, (name) => name, '', 'returns', ctx);
      data.returns.forEach((name, index) => {
        if (name === 'error') customIssue(ctx, 'reserved_name', ['returns', index], "'error' is a built-in exit");
      });
    }),
  exits: { static: ['error'], of: (data) => [...data.returns, 'error'] },
  texts: { en, pt },
});
