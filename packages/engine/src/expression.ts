/**
 * The expression language of the `condition` and `variable` blocks (grammar in docs/engine.md).
 * A hand-written parser compiles the text once per plan version into a tree of closures: no
 * `eval`, no `new Function`, no property access at all, so nothing reaches the host or an
 * object prototype. Evaluation never throws: what has no sensible value (a division by zero,
 * arithmetic on words) is `null`.
 */
import { compareValues, isTruthy, maxValueLength, normaliseValue, toNumber, toText, type Value } from './values.ts';
import { expressionLimits, functions } from './expression-functions.ts';

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

type Node = (scope: Scope) => Value;

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
