import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const fxDescription = describeBlock({
  type: 'fx',
  exits: { static: ['error'], of: (data: { returns: readonly string[] }) => [...data.returns, 'error'] },
  texts: { en, pt },
});
