import type { Condition, FieldMap, OrderTerm, Scalar } from '@voxplan/contracts';
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, sql, type SqlBool } from 'kysely';
import type { DialectName } from '../db/database.ts';

// The builders here are generic over tables: every field name reaching them has been checked
// against the resource's field map by parseFilter, so the loose table typing is contained.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- generic over every resource table
type AnyBuilder = ExpressionBuilder<any, any>;

const toColumnValue = (value: Scalar): string | number => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

const operatorSql = { eq: '=', neq: '<>', lt: '<', gt: '>', lte: '<=', gte: '>=' } as const;

/**
 * Joins terms as a balanced tree, ((a AND b) AND (c AND d)), not a flat a AND b AND c AND d:
 * SQLite parses a flat list into a tree as deep as the list is long and refuses one deeper than
 * 1000, which a filter's 1000-clause 'or' (nested up to 12 levels) would otherwise reach.
 */
function balanced(eb: AnyBuilder, kind: 'and' | 'or', terms: Expression<SqlBool>[]): Expression<SqlBool> {
  if (terms.length === 0) return kind === 'and' ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
  if (terms.length === 1) return terms[0]!;
  const middle = Math.ceil(terms.length / 2);
  const halves = [balanced(eb, kind, terms.slice(0, middle)), balanced(eb, kind, terms.slice(middle))];
  return kind === 'and' ? eb.and(halves) : eb.or(halves);
}

const LIKE_ESCAPE = '\\';

/** A pattern ending in a lone escape character would be an error on PostgreSQL: it stands for itself. */
function likePattern(pattern: string): string {
  let trailing = 0;
  while (trailing < pattern.length && pattern[pattern.length - 1 - trailing] === LIKE_ESCAPE) trailing += 1;
  return trailing % 2 === 1 ? pattern + LIKE_ESCAPE : pattern;
}

/** What a derived field (definition.ts, derivedFields) stands for, in place of a column. */
export type DerivedColumns = Readonly<Record<string, Expression<unknown>>>;

/** Compiles a parsed where clause to a Kysely expression: values are always bound parameters. */
export function compileCondition(eb: AnyBuilder, condition: Condition, dialect: DialectName, derived: DerivedColumns = {}): Expression<SqlBool> {
  const columnOf = (field: string): Expression<unknown> => (Object.hasOwn(derived, field) ? derived[field]! : eb.ref(field));
  switch (condition.kind) {
    case 'and':
    case 'or':
      return balanced(
        eb,
        condition.kind,
        condition.items.map((item) => compileCondition(eb, item, dialect, derived)),
      );
    case 'between':
      return eb.between(columnOf(condition.field), toColumnValue(condition.low), toColumnValue(condition.high));
    case 'in': {
      const column = columnOf(condition.field);
      if (condition.values.length === 0) return condition.negate ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
      const values = condition.values.map(toColumnValue);
      // "not in" keeps rows whose value is unknown, as a person reading the filter expects.
      return condition.negate
        ? eb.or([eb(column, 'not in', values), eb(column, 'is', null)])
        : eb(column, 'in', values);
    }
    case 'compare': {
      const column = columnOf(condition.field);
      const { op, value } = condition;
      if (value === null) {
        if (op === 'eq') return eb(column, 'is', null);
        if (op === 'neq') return eb(column, 'is not', null);
        throw new Error(`operator ${op} cannot compare with null`);
      }
      if (op === 'like' || op === 'nlike') {
        // ILIKE on PostgreSQL; SQLite's LIKE already ignores case (of ASCII letters). Backslash is
        // the escape character on both: PostgreSQL's default, stated explicitly for SQLite.
        const likeOp = sql.raw(`${op === 'nlike' ? 'not ' : ''}${dialect === 'postgres' ? 'ilike' : 'like'}`);
        const matches = sql<SqlBool>`${column} ${likeOp} ${likePattern(String(value))} escape ${LIKE_ESCAPE}`;
        return op === 'like' ? matches : eb.or([matches, eb(column, 'is', null)]);
      }
      if (op === 'neq') return eb.or([eb(column, '<>', toColumnValue(value)), eb(column, 'is', null)]);
      return eb(column, operatorSql[op], toColumnValue(value));
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- generic over every resource table
export function applyOrder<Q extends SelectQueryBuilder<any, any, any>>(query: Q, order: OrderTerm[], fields: FieldMap): Q {
  let ordered = query;
  for (const term of order) ordered = ordered.orderBy(term.field, term.direction) as Q;
  // A unique last key makes paging stable when the chosen order has ties.
  if (Object.hasOwn(fields, 'id') && !order.some((term) => term.field === 'id')) ordered = ordered.orderBy('id', 'asc') as Q;
  return ordered;
}

/** Where a condition's value was taken out: `values[index]` goes there. */
export class ValueSlot {
  constructor(readonly index: number) {}
}

export interface ConditionShape {
  /** The same for every condition that compiles to the same SQL with other bound values. */
  key: string;
  /** The condition with a ValueSlot for each value taken out. */
  template: Condition | undefined;
  values: (string | number)[];
}

/** A value compileCondition turns into something else stays in the shape: a boolean (stored as 0/1), a like pattern (escaped). */
const keptInShape = (value: Scalar, node: Condition): boolean =>
  typeof value === 'boolean' || (node.kind === 'compare' && (node.op === 'like' || node.op === 'nlike'));

/** A value's part of the key: the value itself when it stays in the shape (its JSON: never a bare ?), else ? and the value taken out. */
function valuePart(value: Scalar, node: Condition, values: (string | number)[]): string {
  if (keptInShape(value, node)) return JSON.stringify(value);
  values.push(value as string | number);
  return '?';
}

/** The key of a condition's shape, the values taken out in the order the template's slots number them. */
function shapeKey(node: Condition, values: (string | number)[]): string {
  switch (node.kind) {
    case 'and':
    case 'or': {
      let key = `${node.kind}(`;
      for (let i = 0; i < node.items.length; i++) key += `${i > 0 ? ',' : ''}${shapeKey(node.items[i]!, values)}`;
      return `${key})`;
    }
    case 'between':
      return `between ${JSON.stringify(node.field)} ${valuePart(node.low, node, values)} ${valuePart(node.high, node, values)}`;
    case 'in': {
      let key = `in${node.negate ? ' not' : ''} ${JSON.stringify(node.field)} [`;
      for (let i = 0; i < node.values.length; i++) key += `${i > 0 ? ',' : ''}${valuePart(node.values[i]!, node, values)}`;
      return `${key}]`;
    }
    case 'compare':
      return `${node.op} ${JSON.stringify(node.field)} ${node.value === null ? 'null' : valuePart(node.value, node, values)}`;
  }
}

/**
 * Takes a condition's plain values out, so that the query of its shape is compiled once and run
 * with each request's values (db/prepared.ts): building and compiling a filter's query with Kysely
 * took about 20 µs a request. Values that compileCondition turns into something else stay in the
 * shape: null (`is null`), booleans (stored as 0/1) and like patterns (escaped). The key is
 * written in one walk, and the template made only when asked for (when the shape's query is
 * compiled, once): a copy of the condition and its JSON on every request cost about 3 µs (issue 40).
 */
export function conditionShape(condition: Condition | undefined): ConditionShape {
  const values: (string | number)[] = [];
  return new Shape(condition ? shapeKey(condition, values) : '', values, condition);
}

/**
 * A shape as a class, its template a getter of the prototype: an object literal with a getter of
 * its own is made by a slow path of V8's, and its closure kept a copy of the condition alive, on
 * every list and count (issue 40).
 */
class Shape implements ConditionShape {
  constructor(
    readonly key: string,
    readonly values: (string | number)[],
    private readonly condition: Condition | undefined,
  ) {}

  get template(): Condition | undefined {
    // The slots numbered in the order shapeKey took the values out: the same walk.
    let index = 0;
    return mapValues(this.condition, (value, node) => (keptInShape(value, node) ? value : (new ValueSlot(index++) as unknown as Scalar)));
  }
}

/** The template with each slot replaced by what stands for its value (the value, or a prepared query's placeholder). */
export function fillShape(template: Condition | undefined, valueOf: (index: number) => unknown): Condition | undefined {
  return mapValues(template, (value) => ((value as unknown) instanceof ValueSlot ? (valueOf((value as unknown as ValueSlot).index) as Scalar) : value));
}

/** A copy of the condition with every non-null value passed through `map`. */
function mapValues(condition: Condition | undefined, map: (value: Scalar, node: Condition) => Scalar): Condition | undefined {
  const walk = (node: Condition): Condition => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { kind: node.kind, items: node.items.map(walk) };
      case 'between':
        return { ...node, low: map(node.low, node), high: map(node.high, node) };
      case 'in':
        return { ...node, values: node.values.map((value) => map(value, node)) };
      case 'compare':
        return node.value === null ? node : { ...node, value: map(node.value, node) };
    }
  };
  return condition && walk(condition);
}
