/**
 * The expression language of the `condition` and `variable` blocks (grammar in docs/engine.md).
 * A hand-written parser compiles the text once per plan version into a tree of closures: no
 * `eval`, no `new Function`, no property access at all, so nothing reaches the host or an
 * object prototype. Evaluation never throws: what has no sensible value (a division by zero,
 * arithmetic on words) is `null`.
 */
import { type Value, compareValues, isTruthy, maxValueLength, normaliseValue, toNumber, toText } from './values.ts';

export type Scope = (name: string) => Value;

export interface Expression {
  readonly source: string;
  /** Variables the expression reads, for lint and the editor. */
  readonly variables: readonly string[];
  evaluate(scope: Scope): Value;
}

export class ExpressionError extends Error {
  constructor(
    message: string,
    /** Offset in the source where the mistake was found. */
    readonly position: number,
  ) {
    super(`${message} at position ${position + 1}`);
    this.name = 'ExpressionError';
  }
}

export const expressionLimits = { maxLength: 2_000, maxDepth: 32, maxArguments: 16 } as const;

type Node = (scope: Scope) => Value;

interface FunctionSpec {
  min: number;
  max: number;
  call: (args: Value[]) => Value;
}

const text = (value: Value | undefined): string => toText(value);
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

const functions: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
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

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

const OPERATORS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '%', '!', '&', '(', ')', ',', '?', ':'];
// Maps, not object literals: a word like `constructor` must not find Object.prototype's member.
const WORD_OPERATORS: ReadonlyMap<string, string> = new Map([
  ['and', '&&'],
  ['or', '||'],
  ['not', '!'],
]);
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
]);

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const at = i;
    if ((c >= '0' && c <= '9') || (c === '.' && /\d/.test(source[i + 1] ?? ''))) {
      const match = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(source.slice(i))!;
      tokens.push({ kind: 'number', value: Number(match[0]), at });
      i += match[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new ExpressionError('unterminated text', at);
        const d = source[i]!;
        if (d === c) break;
        if (d === '\\') {
          const escaped = ESCAPES.get(source[i + 1] ?? '');
          if (escaped === undefined) throw new ExpressionError('unknown escape', i);
          value += escaped;
          i += 2;
          continue;
        }
        value += d;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', value, at });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))!;
      const word = match[0];
      const operator = WORD_OPERATORS.get(word);
      tokens.push(operator ? { kind: 'op', value: operator, at } : { kind: 'name', value: word, at });
      i += word.length;
      continue;
    }
    const operator = OPERATORS.find((op) => source.startsWith(op, i));
    if (!operator) throw new ExpressionError(`unexpected '${c}'`, at);
    tokens.push({ kind: 'op', value: operator, at });
    i += operator.length;
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
}

const constant =
  (value: Value): Node =>
  () =>
    value;

class Parser {
  private index = 0;
  private depth = 0;
  readonly variables = new Set<string>();

  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.ternary();
    const next = this.peek();
    if (next.kind !== 'end') throw new ExpressionError('unexpected text after the expression', next.at);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private take(): Token {
    return this.tokens[this.index++]!;
  }

  private isOp(value: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.value === value;
  }

  private expect(value: string): void {
    const token = this.take();
    if (token.kind !== 'op' || token.value !== value) throw new ExpressionError(`expected '${value}'`, token.at);
  }

  private nested<T>(at: number, parse: () => T): T {
    if (++this.depth > expressionLimits.maxDepth) throw new ExpressionError('expression nested too deeply', at);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private ternary(): Node {
    const condition = this.or();
    if (!this.isOp('?')) return condition;
    const at = this.take().at;
    const yes = this.nested(at, () => this.ternary());
    this.expect(':');
    const no = this.nested(at, () => this.ternary());
    return (scope) => (isTruthy(condition(scope)) ? yes(scope) : no(scope));
  }

  private or(): Node {
    let left = this.and();
    while (this.isOp('||')) {
      this.take();
      const a = left;
      const b = this.and();
      left = (scope) => isTruthy(a(scope)) || isTruthy(b(scope));
    }
    return left;
  }

  private and(): Node {
    let left = this.not();
    while (this.isOp('&&')) {
      this.take();
      const a = left;
      const b = this.not();
      left = (scope) => isTruthy(a(scope)) && isTruthy(b(scope));
    }
    return left;
  }

  private not(): Node {
    if (this.isOp('!')) {
      const at = this.take().at;
      const operand = this.nested(at, () => this.not());
      return (scope) => !isTruthy(operand(scope));
    }
    return this.comparison();
  }

  private comparison(): Node {
    const left = this.concatenation();
    const token = this.peek();
    if (token.kind !== 'op' || !['==', '!=', '<', '<=', '>', '>='].includes(token.value)) return left;
    this.take();
    const right = this.concatenation();
    const test = {
      '==': (c: number) => c === 0,
      '!=': (c: number) => c !== 0,
      '<': (c: number) => c < 0,
      '<=': (c: number) => c <= 0,
      '>': (c: number) => c > 0,
      '>=': (c: number) => c >= 0,
    }[token.value]!;
    return (scope) => test(compareValues(left(scope), right(scope)));
  }

  private concatenation(): Node {
    let left = this.additive();
    while (this.isOp('&')) {
      this.take();
      const a = left;
      const b = this.additive();
      left = (scope) => normaliseValue(toText(a(scope)) + toText(b(scope)));
    }
    return left;
  }

  private additive(): Node {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.take() as { value: string };
      const a = left;
      const b = this.multiplicative();
      left =
        op.value === '+'
          ? (scope) => {
              const x = a(scope);
              const y = b(scope);
              const m = toNumber(x);
              const n = toNumber(y);
              // Keypad digits arrive as text: "1" + 2 is 3; words join, as a person expects.
              if (m !== undefined && n !== undefined && typeof x !== 'boolean' && typeof y !== 'boolean') return normaliseValue(m + n);
              return normaliseValue(toText(x) + toText(y));
            }
          : arithmetic(a, b, (m, n) => m - n);
    }
    return left;
  }

  private multiplicative(): Node {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = (this.take() as { value: string }).value;
      const a = left;
      const b = this.unary();
      left = arithmetic(a, b, op === '*' ? (m, n) => m * n : op === '/' ? (m, n) => m / n : (m, n) => m % n);
    }
    return left;
  }

  private unary(): Node {
    if (this.isOp('-')) {
      const at = this.take().at;
      const operand = this.nested(at, () => this.unary());
      return (scope) => {
        const n = toNumber(operand(scope));
        return n === undefined ? null : -n;
      };
    }
    return this.primary();
  }

  private primary(): Node {
    const token = this.take();
    switch (token.kind) {
      case 'number':
        return constant(token.value);
      case 'string':
        if (token.value.length > maxValueLength) throw new ExpressionError('text too long', token.at);
        return constant(token.value);
      case 'name':
        return this.name(token.value, token.at);
      case 'op':
        if (token.value === '(') {
          const inner = this.nested(token.at, () => this.ternary());
          this.expect(')');
          return inner;
        }
        throw new ExpressionError(`unexpected '${token.value}'`, token.at);
      case 'end':
        throw new ExpressionError('the expression ends too early', token.at);
    }
  }

  private name(word: string, at: number): Node {
    if (word === 'true') return constant(true);
    if (word === 'false') return constant(false);
    if (word === 'null') return constant(null);
    if (!this.isOp('(')) {
      this.variables.add(word);
      return (scope) => scope(word);
    }
    const spec = functions.get(word);
    if (!spec) throw new ExpressionError(`unknown function '${word}'`, at);
    this.take();
    const args: Node[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.nested(at, () => this.ternary()));
        if (!this.isOp(',')) break;
        this.take();
      }
    }
    this.expect(')');
    if (args.length < spec.min || args.length > spec.max) {
      const expected = spec.min === spec.max ? `${spec.min}` : `${spec.min} to ${spec.max}`;
      throw new ExpressionError(`${word}() takes ${expected} arguments`, at);
    }
    return (scope) => spec.call(args.map((arg) => arg(scope)));
  }
}

function arithmetic(a: Node, b: Node, op: (m: number, n: number) => number): Node {
  return (scope) => {
    const m = toNumber(a(scope));
    const n = toNumber(b(scope));
    return m === undefined || n === undefined ? null : normaliseValue(op(m, n));
  };
}

export function compileExpression(source: string): Expression {
  if (source.length > expressionLimits.maxLength) throw new ExpressionError(`longer than ${expressionLimits.maxLength} characters`, 0);
  if (source.trim() === '') throw new ExpressionError('the expression is empty', 0);
  const parser = new Parser(tokenize(source));
  const root = parser.parse();
  return { source, variables: [...parser.variables], evaluate: (scope) => normaliseValue(root(scope)) };
}
