/**
 * The LoopBack-style query language of spec section 7, parsed into a small typed tree.
 * Parsing lives here, beside the entity schemas, so the server (which compiles the tree to SQL)
 * and the console (which builds filters) agree on one grammar and one set of limits.
 */

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date';
export type FieldMap = Readonly<Record<string, FieldType>>;

export type Scalar = string | number | boolean;

export const comparisonOperators = ['eq', 'neq', 'lt', 'gt', 'lte', 'gte', 'like', 'nlike'] as const;
export const whereOperators = [...comparisonOperators, 'between', 'inq', 'nin'] as const;
export type ComparisonOperator = (typeof comparisonOperators)[number];
export type WhereOperator = (typeof whereOperators)[number];

export type Condition =
  | { kind: 'and' | 'or'; items: Condition[] }
  | { kind: 'compare'; field: string; op: ComparisonOperator; value: Scalar | null }
  | { kind: 'between'; field: string; low: Scalar; high: Scalar }
  | { kind: 'in'; field: string; negate: boolean; values: Scalar[] };

export interface OrderTerm {
  field: string;
  direction: 'asc' | 'desc';
}

export interface ParsedFilter {
  where?: Condition;
  order: OrderTerm[];
  limit?: number;
  skip: number;
}

export const filterLimits = {
  maxDepth: 12,
  maxLimit: 1000,
  maxListItems: 1000,
  maxOrderTerms: 10,
  /**
   * Values one where clause may compare with, all conditions together (a condition without a
   * value counts as one): a query's bound parameters are limited (SQLite 32766, PostgreSQL 65535).
   */
  maxValues: 10_000,
} as const;

/** Integer fields are 32-bit columns (PostgreSQL `integer`): a larger value is a mistake, not a query. */
export const integerRange = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

export class FilterError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** Numbers written as text: plain decimals only, so "0x10" or "1e3" are not read as 16 or 1000. */
const DECIMAL = /^\s*-?\d+(\.\d+)?\s*$/;

function isoFromMs(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * An ISO 8601 date or date-time as stored (UTC text). A time without a zone is UTC, like the stored
 * times, not the server's local time; a day that is not in the calendar (2024-02-30) is refused
 * rather than rolled over into the next month.
 */
function isoFromText(text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day);
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
  const hasTime = match[1] !== undefined;
  const hasZone = match[4] !== undefined;
  return isoFromMs(Date.parse(`${text.replace(' ', 'T')}${hasTime && !hasZone ? 'Z' : ''}`));
}

/** Text columns cannot hold NUL on PostgreSQL, so no value may contain one on either database. */
function checkText(field: string, text: string, path: string): string {
  if (text.includes('\u0000')) throw new FilterError(`'${field}' values may not contain the NUL character`, path);
  return text;
}

function coerceValue(field: string, type: FieldType, value: unknown, path: string): Scalar {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return checkText(field, value, path);
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      break;
    case 'integer':
    case 'number': {
      const n = typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
      if (typeof n === 'number' && Number.isFinite(n) && (type === 'number' || Number.isInteger(n))) {
        if (type === 'integer' && (n < integerRange.min || n > integerRange.max)) {
          throw new FilterError(`'${field}' expects a whole number from ${integerRange.min} to ${integerRange.max}`, path);
        }
        return n;
      }
      break;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      break;
    case 'date': {
      const iso = typeof value === 'string' ? isoFromText(value) : typeof value === 'number' ? isoFromMs(value) : undefined;
      if (iso !== undefined) return iso;
      break;
    }
  }
  throw new FilterError(`'${field}' expects a ${type} value`, path);
}

function parseList(field: string, type: FieldType, value: unknown, path: string): Scalar[] {
  if (!Array.isArray(value)) throw new FilterError(`'${field}' expects a list`, path);
  if (value.length > filterLimits.maxListItems) {
    throw new FilterError(`a list may hold at most ${filterLimits.maxListItems} items`, path);
  }
  return value.map((item, i) => coerceValue(field, type, item, `${path}[${i}]`));
}

function parseFieldCondition(field: string, type: FieldType, spec: unknown, path: string): Condition {
  if (!isPlainObject(spec)) {
    if (spec === null) return { kind: 'compare', field, op: 'eq', value: null };
    return { kind: 'compare', field, op: 'eq', value: coerceValue(field, type, spec, path) };
  }
  const entries = Object.entries(spec);
  if (entries.length === 0) throw new FilterError(`'${field}' has an empty condition`, path);
  const items = entries.map(([op, operand]): Condition => {
    const opPath = `${path}.${op}`;
    switch (op) {
      case 'eq':
      case 'neq':
        return {
          kind: 'compare',
          field,
          op,
          value: operand === null ? null : coerceValue(field, type, operand, opPath),
        };
      case 'lt':
      case 'gt':
      case 'lte':
      case 'gte':
        if (type === 'boolean') throw new FilterError(`'${op}' does not apply to a boolean field`, opPath);
        return { kind: 'compare', field, op, value: coerceValue(field, type, operand, opPath) };
      case 'like':
      case 'nlike':
        if (type !== 'string') throw new FilterError(`'${op}' applies to text fields only`, opPath);
        if (typeof operand !== 'string') throw new FilterError(`'${op}' expects a text pattern`, opPath);
        return { kind: 'compare', field, op, value: checkText(field, operand, opPath) };
      case 'between': {
        if (type === 'boolean') throw new FilterError(`'between' does not apply to a boolean field`, opPath);
        const bounds = parseList(field, type, operand, opPath);
        if (bounds.length !== 2) throw new FilterError(`'between' expects two values`, opPath);
        return { kind: 'between', field, low: bounds[0]!, high: bounds[1]! };
      }
      case 'inq':
      case 'nin':
        return { kind: 'in', field, negate: op === 'nin', values: parseList(field, type, operand, opPath) };
      default:
        throw new FilterError(`unknown operator '${op}'`, opPath);
    }
  });
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

/** What a condition costs against filterLimits.maxValues. */
function weight(condition: Condition): number {
  switch (condition.kind) {
    case 'and':
    case 'or':
      return condition.items.reduce((sum, item) => sum + weight(item), 0);
    case 'compare':
      return 1;
    case 'between':
      return 2;
    case 'in':
      return Math.max(1, condition.values.length);
  }
}

function parseClause(
  where: unknown,
  fields: FieldMap,
  path: string,
  depth: number,
  budget: { values: number },
): Condition | undefined {
  if (where === undefined || where === null) return undefined;
  if (!isPlainObject(where)) throw new FilterError('a where clause must be an object', path);
  if (depth > filterLimits.maxDepth) {
    throw new FilterError(`a where clause may nest at most ${filterLimits.maxDepth} levels`, path);
  }
  const items: Condition[] = [];
  for (const [key, value] of Object.entries(where)) {
    const keyPath = `${path}.${key}`;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(value) || value.length === 0) {
        throw new FilterError(`'${key}' expects a non-empty list of clauses`, keyPath);
      }
      if (value.length > filterLimits.maxListItems) {
        throw new FilterError(`'${key}' may hold at most ${filterLimits.maxListItems} clauses`, keyPath);
      }
      const children = value.map((clause, i) => parseClause(clause, fields, `${keyPath}[${i}]`, depth + 1, budget));
      const conditions = children.filter((c): c is Condition => c !== undefined);
      // An empty clause ({}) matches every row: it drops out of an 'and', and makes an 'or' always true.
      if (conditions.length === 0 || (key === 'or' && conditions.length < children.length)) continue;
      items.push(conditions.length === 1 ? conditions[0]! : { kind: key, items: conditions });
      continue;
    }
    const type = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!type) throw new FilterError(`unknown field '${key}'`, keyPath);
    const condition = parseFieldCondition(key, type, value, keyPath);
    budget.values += weight(condition);
    if (budget.values > filterLimits.maxValues) {
      throw new FilterError(`a where clause may compare with at most ${filterLimits.maxValues} values in all`, keyPath);
    }
    items.push(condition);
  }
  if (items.length === 0) return undefined;
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

/**
 * Parses a where clause. `like`/`nlike` patterns use `%` (any run of characters) and `_` (one
 * character), ignore case, and take `\` as the escape character (`\%` is a literal percent sign);
 * a lone `\` at the end of a pattern stands for itself.
 */
export function parseWhere(where: unknown, fields: FieldMap, path = 'where', depth = 1): Condition | undefined {
  return parseClause(where, fields, path, depth, { values: 0 });
}

export function parseOrder(order: unknown, fields: FieldMap): OrderTerm[] {
  if (order === undefined || order === null) return [];
  const terms = typeof order === 'string' ? [order] : order;
  if (!Array.isArray(terms)) throw new FilterError('order expects a list like ["name ASC"]', 'order');
  if (terms.length > filterLimits.maxOrderTerms) {
    throw new FilterError(`order may hold at most ${filterLimits.maxOrderTerms} terms`, 'order');
  }
  return terms.map((term, i) => {
    const path = `order[${i}]`;
    if (typeof term !== 'string') throw new FilterError('an order term must be text like "name ASC"', path);
    const [field = '', direction = 'ASC', ...rest] = term.trim().split(/\s+/);
    if (rest.length > 0) throw new FilterError(`'${term}' is not of the form "field ASC|DESC"`, path);
    if (!Object.hasOwn(fields, field)) throw new FilterError(`unknown field '${field}'`, path);
    const upper = direction.toUpperCase();
    if (upper !== 'ASC' && upper !== 'DESC') throw new FilterError(`'${direction}' is not ASC or DESC`, path);
    return { field, direction: upper === 'ASC' ? 'asc' : 'desc' };
  });
}

function parseCount(value: unknown, name: 'limit' | 'skip', max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > max) {
    throw new FilterError(`${name} must be a whole number from 0 to ${max}`, name);
  }
  return n;
}

const filterKeys = new Set(['where', 'order', 'limit', 'skip', 'offset', 'include', 'fields']);

export function parseFilter(filter: unknown, fields: FieldMap): ParsedFilter {
  if (filter === undefined || filter === null) return { order: [], skip: 0 };
  if (!isPlainObject(filter)) throw new FilterError('a filter must be an object', 'filter');
  for (const key of Object.keys(filter)) {
    if (!filterKeys.has(key)) throw new FilterError(`unknown filter key '${key}'`, key);
  }
  const where = parseWhere(filter.where, fields);
  const limit = parseCount(filter.limit, 'limit', filterLimits.maxLimit);
  const skip = parseCount(filter.skip ?? filter.offset, 'skip', Number.MAX_SAFE_INTEGER) ?? 0;
  return { ...(where && { where }), order: parseOrder(filter.order, fields), ...(limit !== undefined && { limit }), skip };
}

/** Decodes a query-string parameter holding JSON (spec section 7: objects travel as JSON strings). */
export function decodeJsonParam(raw: unknown, name: string): unknown {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new FilterError(`${name} is not valid JSON`, name);
  }
}
