import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import en from './en.json' with { type: 'json' };
import pt from './pt.json' with { type: 'json' };

/** Tones 0-9, * and #, `w` for a half-second pause, and `{{name}}` for digits held in a variable. */
const DTMF = /^(?:[0-9*#wW]|\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\})+$/;

export const sendDtmfBlock = defineBlock({
  type: 'send_dtmf',
  schema: z.strictObject({ digits: z.string().max(200).regex(DTMF, 'only 0-9, *, #, w (pause) and {{variables}}') }),
  exits: ['next'],
  texts: { en, pt },
});
