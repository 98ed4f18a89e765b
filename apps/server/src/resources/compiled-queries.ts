/** What the resources' reads and writes share: the loose Kysely types and the queries compiled once per shape. */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Values } from './definition.ts';

// Kysely is typed per table; this layer serves every table, and checks every column name it uses
// against the resource's field map before it reaches a query.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type LooseDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type -- a select of any resource table, nothing selected yet
export type LooseSelect = SelectQueryBuilder<any, any, {}>;

/** Queries compiled once per shape (of a filter, of the columns written): a bounded number per resource, oldest out first. */
const MAX_SHAPES = 500;

/** The query kept under `key`, made by `make` the first time. */
export function compiledFor<Query>(kept: Map<string, Query>, key: string, make: () => Query): Query {
  let query = kept.get(key);
  if (!query) {
    query = make();
    if (kept.size >= MAX_SHAPES) kept.delete(kept.keys().next().value!);
    kept.set(key, query);
  }
  return query;
}

/**
 * The values Kysely would write (it leaves undefined ones out), or undefined when one of them is
 * not a single value bound as it comes (Kysely writes an array as a list, runs an expression), so
 * that the statement cannot be compiled once for its columns.
 */
export function boundValues(row: Values): Values | undefined {
  const values: Values = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    if (typeof value === 'object' && value !== null && !(value instanceof Uint8Array)) return undefined;
    values[column] = value;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}

/** The name a compiled update gives the id of the row it updates: no column is called so. */
export const WHERE_ID = 'where id';
