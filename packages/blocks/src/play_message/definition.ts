import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { checkPrompt, promptFields } from '../core/fields.ts';
import { playMessageDescription } from './description.ts';

export const playMessageBlock = defineBlock(playMessageDescription, z.strictObject(promptFields).superRefine(checkPrompt));
