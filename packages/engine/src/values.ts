/**
 * The values a session holds and expressions compute. Variables are flat scalars: a plan author
 * reads them back with `{{name}}` and compares them in conditions, so nested objects (an HTTP
 * answer, a Lua table) are stored as their JSON text instead.
 */
export type Value = string | number | boolean | null;

/** Longest text one variable keeps; a loop that doubles a string cannot exhaust memory. */
export const maxValueLength = 8_192;

/** Variables the engine fills itself; a plan may read them but not assign them. */
export const builtinVariables = [
  'caller',
  'called',
  'channel',
  'protocol',
  'session_id',
  'plan_id',
  'tenant_id',
  'last_digits',
  'last_input',
  'now',
] as const;
export type BuiltinVariable = (typeof builtinVariables)[number];

const builtinSet: ReadonlySet<string> = new Set(builtinVariables);
export const isBuiltinVariable = (name: string): name is BuiltinVariable => builtinSet.has(name);

export const variableNamePattern = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * A session's variables copied key by key, in their order. Not `{ ...variables }`: V8 (Node 20)
 * gives a spread copy a map outside the transition tree, so each variable a turn then adds makes
 * a new map, about 15 times the cost of adding it to a copy made this way, and garbage.
 * The names are assignable ones (isAssignableVariableName): never `__proto__`.
 */
export function copyVariables(variables: Readonly<Record<string, Value>>): Record<string, Value> {
  const copy: Record<string, Value> = {};
  for (const name in variables) copy[name] = variables[name]!;
  return copy;
}

/**
 * A name a block may assign: an identifier, not a built-in, and not `__proto__`, which as a
 * property key on a plain object would replace its prototype instead of storing a value.
 */
export function isAssignableVariableName(name: string): boolean {
  return variableNamePattern.test(name) && !builtinSet.has(name) && name !== '__proto__';
}

export function toText(value: Value | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return String(value);
}

/**
 * One way to read each digit run: `\d+\.?\d*` split a run between its two quantifiers in every
 * way before failing, quadratic in the text (150 ms on a chat message of 8,000 digits and a
 * letter, on each comparison).
 */
const NUMERIC = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** The number a value stands for, or `undefined`: digits typed on a keypad are text but numeric. */
export function toNumber(value: Value | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && NUMERIC.test(value)) {
    const number = Number(value);
    return Number.isFinite(number) ? number : undefined;
  }
  return undefined;
}

/** Numbers compare as numbers when both sides are numeric, anything else as text. */
export function compareValues(left: Value | undefined, right: Value | undefined): number {
  const a = typeof left === 'boolean' ? undefined : toNumber(left);
  const b = typeof right === 'boolean' ? undefined : toNumber(right);
  if (a !== undefined && b !== undefined) return a === b ? 0 : a < b ? -1 : 1;
  const x = toText(left);
  const y = toText(right);
  return x === y ? 0 : x < y ? -1 : 1;
}

export function isTruthy(value: Value | undefined): boolean {
  return !(value === null || value === undefined || value === false || value === 0 || value === '');
}

/** Keeps a value within the limits a session stores: finite numbers, bounded text. */
export function normaliseValue(value: Value | undefined): Value {
  if (value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.length > maxValueLength) return value.slice(0, maxValueLength);
  return value;
}

/** A value from outside (JSON, a Lua table) as a session value: objects become their JSON text. */
export function fromForeign(value: unknown): Value {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return normaliseValue(value);
  try {
    return normaliseValue(JSON.stringify(value) ?? null);
  } catch {
    return null;
  }
}
