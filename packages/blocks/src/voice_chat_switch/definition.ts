import { z } from 'zod';
import { defineBlock } from '../core/define.ts';
import { voiceChatSwitchDescription } from './description.ts';

export const voiceChatSwitchBlock = defineBlock(voiceChatSwitchDescription, z.strictObject({}));
