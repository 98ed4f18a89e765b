import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

export const httpRequestDescription = describeBlock({
  type: 'http_request',
  exits: ['success', 'error'],
  texts: { en, pt },
});
