/**
 * Goals (docs/rollouts.md, "Goals"): any block may carry `data.goal`, the name a person gave the
 * goal ("paid"). It sits beside the block's own fields, which each block's schema checks strictly,
 * so it is taken out before that check and put back after. No zod here: the canvas reads it too.
 */

/** A goal's name is a few words, as a block's name is. */
export const goalNameLength = 60;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The block's goal, trimmed; undefined when it is none (absent, not a string, or blank). */
export function goalOfData(data: unknown): string | undefined {
  if (!isRecord(data) || typeof data.goal !== 'string') return undefined;
  const goal = data.goal.trim();
  return goal === '' ? undefined : goal;
}

/** The block's data without its goal: what the block's own schema checks. */
export function dataWithoutGoal(data: unknown): unknown {
  if (!isRecord(data) || !('goal' in data)) return data;
  const { goal: _goal, ...rest } = data;
  return rest;
}

/** The data with `goal` set, or taken out when blank. */
export function dataWithGoal(data: Record<string, unknown>, goal: string): Record<string, unknown> {
  const rest = dataWithoutGoal(data) as Record<string, unknown>;
  return goal.trim() === '' ? rest : { ...rest, goal };
}
