import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

const fixedExits = ['default', 'error'];

export const apiSwitchDescription = describeBlock({
  type: 'api_switch',
  exits: { static: fixedExits, of: (data: { cases: readonly { exit: string }[] }) => [...new Set(data.cases.map((item) => item.exit)), ...fixedExits] },
  texts: { en, pt },
});
