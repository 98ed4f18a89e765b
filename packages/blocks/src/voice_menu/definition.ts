import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkPrompt, checkUnique, promptFields, templateText } from '../core/fields.ts';
import { voiceMenuDescription } from './description.ts';

export const voiceMenuBlock = defineBlock(
  voiceMenuDescription,
  z
    .strictObject({
      ...promptFields,
      /** Each option's digits are its exit's name. */
      options: z
        .array(z.strictObject({ digits: z.string().regex(/^[0-9*#]{1,20}$/, 'only 0-9, * and #'), label: z.string().max(100).default('') }))
        .min(1)
        .max(20),
      max_digits: z.number().int().min(1).max(20).default(1),
      timeout_s: z.number().int().min(1).max(60).default(5),
      max_retries: z.number().int().min(0).max(10).default(3),
      invalid_text: templateText(1_000),
    })
    .superRefine((data, ctx) => {
      checkPrompt(data, ctx);
      checkUnique(data.options, (option) => option.digits, 'digits', 'options', ctx);
      data.options.forEach((option, index) => {
        if (option.digits.length > data.max_digits) {
          ctx.addIssue({ code: 'custom', path: ['options', index, 'digits'], message: `longer than the menu's max_digits (${data.max_digits})` });
        }
      });
    }),
);
