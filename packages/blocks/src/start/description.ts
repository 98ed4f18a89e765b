import { describeBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

/** Who answered an outbound call, as machine detection tells it (the `answered_by` variable). */
export const answeredByExits = ['human', 'machine', 'unknown'] as const;
export type AnsweredBy = (typeof answeredByExits)[number];

/**
 * One `next` exit, as every plan has had; a plan that calls out may ask for one exit per
 * `answered_by` instead (docs/outbound.md, "Who answered, in the plan"). Off, nothing changes.
 */
export const startDescription = describeBlock({
  type: 'start',
  exits: { static: [], of: (data: { answered_by_exits?: boolean }) => (data.answered_by_exits === true ? answeredByExits : ['next']) },
  texts: { en, pt },
});
