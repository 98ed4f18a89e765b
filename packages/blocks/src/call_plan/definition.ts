import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import { callPlanDescription } from './description.ts';

export const callPlanBlock = defineBlock(callPlanDescription, z.strictObject({ plan_id: referenceId() }));
