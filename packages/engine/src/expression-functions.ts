/**
 * The functions an expression may call (docs/engine.md): their names, arities and
 * what each answers; expression.ts parses the calls and checks them against this table.
 */
import { maxValueLength, normaliseValue, toNumber, toText, type Value } from './values.ts';

export const expressionLimits = { maxLength: 2_000, maxDepth: 32, maxArguments: 16 } as const;

interface FunctionSpec {
  min: number;
  max: number;
  call: (args: Value[]) => Value;
}

export const text = (value: Value | undefined): string => toText(value);
const numeric = (value: Value | undefined): number | null => toNumber(value) ?? null;
const mapNumber = (fn: (n: number) => number) => (args: Value[]) => {
  const n = numeric(args[0]);
  return n === null ? null : normaliseValue(fn(n));
};

/**
 * `source` with every `find` replaced by `by`, built only as far as the `limit` a value keeps.
 * split/join first built all of it: 8,192 characters with each replaced by 8,192 more is 67
 * million (about 110 ms), and one expression may nest thirty such calls, all on the server's thread.
 */
function replaceUpTo(source: string, find: string, by: string, limit: number): string {
  let result = '';
  let from = 0;
  while (result.length < limit) {
    const at = source.indexOf(find, from);
    if (at === -1) return (result + source.slice(from)).slice(0, limit);
    result += source.slice(from, at) + by;
    from = at + find.length;
  }
  return result.slice(0, limit);
}

export const functions: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['len', { min: 1, max: 1, call: ([v]) => text(v).length }],
  ['lower', { min: 1, max: 1, call: ([v]) => text(v).toLowerCase() }],
  ['upper', { min: 1, max: 1, call: ([v]) => text(v).toUpperCase() }],
  ['trim', { min: 1, max: 1, call: ([v]) => text(v).trim() }],
  ['number', { min: 1, max: 1, call: ([v]) => numeric(v) }],
  ['text', { min: 1, max: 1, call: ([v]) => text(v) }],
  ['empty', { min: 1, max: 1, call: ([v]) => text(v).trim() === '' }],
  ['contains', { min: 2, max: 2, call: ([a, b]) => text(a).includes(text(b)) }],
  ['starts_with', { min: 2, max: 2, call: ([a, b]) => text(a).startsWith(text(b)) }],
  ['ends_with', { min: 2, max: 2, call: ([a, b]) => text(a).endsWith(text(b)) }],
  [
    'substr',
    {
      min: 2,
      max: 3,
      call: ([s, start, length]) => {
        const from = numeric(start ?? null) ?? 0;
        const count = length === undefined ? undefined : (numeric(length) ?? 0);
        const value = text(s);
        const begin = Math.max(0, Math.trunc(from));
        return count === undefined ? value.slice(begin) : value.slice(begin, begin + Math.max(0, Math.trunc(count)));
      },
    },
  ],
  ['replace', { min: 3, max: 3, call: ([s, find, by]) => (text(find) === '' ? text(s) : replaceUpTo(text(s), text(find), text(by), maxValueLength)) }],
  [
    'round',
    {
      min: 1,
      max: 2,
      call: ([v, digits]) => {
        const n = numeric(v);
        if (n === null) return null;
        const places = Math.min(10, Math.max(0, Math.trunc(numeric(digits ?? 0) ?? 0)));
        const factor = 10 ** places;
        return normaliseValue(Math.round(n * factor) / factor);
      },
    },
  ],
  ['floor', { min: 1, max: 1, call: mapNumber(Math.floor) }],
  ['ceil', { min: 1, max: 1, call: mapNumber(Math.ceil) }],
  ['abs', { min: 1, max: 1, call: mapNumber(Math.abs) }],
  ['min', { min: 1, max: expressionLimits.maxArguments, call: (args) => extreme(args, -1) }],
  ['max', { min: 1, max: expressionLimits.maxArguments, call: (args) => extreme(args, 1) }],
  ['coalesce', { min: 1, max: expressionLimits.maxArguments, call: (args) => args.find((v) => v !== null && v !== '') ?? null }],
]);

function extreme(args: Value[], sign: 1 | -1): Value {
  let best: number | null = null;
  for (const arg of args) {
    const n = numeric(arg);
    if (n !== null && (best === null || (n - best) * sign > 0)) best = n;
  }
  return best;
}

export const expressionFunctions: readonly string[] = [...functions.keys()];
