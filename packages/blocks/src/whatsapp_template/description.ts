import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

const fixedExits = ['sent', 'failed'];

/** A quick-reply button's exit, by its place in the template (`button_1` for the first). */
export const buttonExit = (index: number): string => `button_${index + 1}`;

export const whatsappTemplateDescription = describeBlock({
  type: 'whatsapp_template',
  exits: { static: fixedExits, of: (data: { buttons: readonly string[] }) => [...data.buttons.map((_, index) => buttonExit(index)), ...fixedExits] },
  errorExit: 'failed',
  waitsForInput: true,
  texts: { en, pt },
});
