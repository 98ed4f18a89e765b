import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { sendDtmfDescription } from './description.ts';

/** Tones 0-9, * and #, `w` for a half-second pause, and `{{name}}` for digits held in a variable. */
const DTMF = /^(?:[0-9*#wW]|\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\})+$/;

export const sendDtmfBlock = defineBlock(
  sendDtmfDescription,
  z.strictObject({ digits: z.string().max(200).regex(DTMF, 'only 0-9, *, #, w (pause) and {{variables}}') }),
);
