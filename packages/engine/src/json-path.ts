/**
 * The paths `http_request` saves from and `api_switch` switches on: `data.items[0].name`,
 * `data.items.0.name` or `$.data["a key"]`. Parsed once per plan version; reading walks own
 * properties only, so `__proto__` or `constructor` in a path finds nothing.
 */
export type JsonPath = ReadonlyArray<string | number>;

export class JsonPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathError';
  }
}

const SEGMENT = /^(?:\.?([A-Za-z_$][\w$-]*)|\.?(\d+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\['((?:[^'\\]|\\.)*)'\])/;

export function parseJsonPath(source: string): JsonPath {
  let rest = source.trim();
  if (rest === '$') return [];
  if (rest.startsWith('$')) rest = rest.slice(1);
  if (rest.startsWith('.')) rest = rest.slice(1);
  if (rest === '') throw new JsonPathError('the path is empty');
  const segments: Array<string | number> = [];
  let first = true;
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    // A bare name or index must follow a dot except at the very start.
    if (!match || (!first && /^[\w$]/.test(rest))) throw new JsonPathError(`cannot read the path at '${rest}'`);
    const [whole, name, dotIndex, bracketIndex, double, single] = match;
    if (name !== undefined) segments.push(name);
    else if (dotIndex !== undefined) segments.push(Number(dotIndex));
    else if (bracketIndex !== undefined) segments.push(Number(bracketIndex));
    else segments.push((double ?? single ?? '').replace(/\\(.)/g, '$1'));
    rest = rest.slice(whole.length);
    first = false;
  }
  return segments;
}

export function readJsonPath(value: unknown, path: JsonPath): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : /^\d+$/.test(segment) ? Number(segment) : -1;
      if (index < 0 || index >= current.length) return undefined;
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      const key = String(segment);
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}
