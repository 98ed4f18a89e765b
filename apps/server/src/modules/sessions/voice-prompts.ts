/**
 * The prompts of a voice turn that belong to the gather after them: a channel plays those with the
 * gather, so that the caller may answer before they end (Twilio nests them in `<Gather>`, Asterisk
 * lets a key cut them short). Shared by the TwiML and the AGI adapters.
 */
import type { Action } from '@voxplan/engine';

export type Prompt = Extract<Action, { type: 'say' | 'play' }>;

export const isPrompt = (action: Action): action is Prompt => action.type === 'say' || action.type === 'play';

/** Whether the prompt at `index` is in the run of prompts right before a gather. */
export function isGatherPrompt(actions: readonly Action[], index: number): boolean {
  let next = index + 1;
  while (next < actions.length && isPrompt(actions[next]!)) next += 1;
  return actions[next]?.type === 'gather';
}

/** The run of prompts right before the action at `index` (a gather), in order. */
export function promptsBefore(actions: readonly Action[], index: number): Prompt[] {
  let first = index;
  while (first > 0 && isPrompt(actions[first - 1]!)) first -= 1;
  return actions.slice(first, index).filter(isPrompt);
}
