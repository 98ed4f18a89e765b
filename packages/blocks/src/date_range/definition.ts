import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { referenceId } from '../core/fields.ts';
import { dateRangeDescription } from './description.ts';

export const dateRangeBlock = defineBlock(dateRangeDescription, z.strictObject({ date_range_id: referenceId() }));
