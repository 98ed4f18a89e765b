import type { Compilable, CompiledQuery, DialectAdapter, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.ts';

const NAME = Symbol('prepared value');

/** Stands for a value in the query a prepared query compiles; the compiled parameters hold it where the value goes. */
interface Placeholder {
  readonly [NAME]: string;
}

const isPlaceholder = (value: unknown): value is Placeholder => typeof value === 'object' && value !== null && NAME in value;

/** The compiled query of one dialect, and which value each of its parameters is. */
interface Template {
  compiled: CompiledQuery;
  /** The name of its statement on a database that runs prepared queries as named statements (one per query and dialect). */
  name: string;
  /** The value's index in the query's names, or null where the query has a constant of its own. */
  slots: Array<number | null>;
}

export type PreparedQuery<Values, Row> = (db: Kysely<Database>, values: Values) => Promise<QueryResult<Row>>;

/** Runs a compiled query at once, synchronously, on the connection of the database it was registered for. */
export type DirectRunner = (query: CompiledQuery) => QueryResult<unknown>;

const directRunners = new WeakMap<DialectAdapter, DirectRunner>();

/**
 * Runs a compiled query of a prepared query outside any transaction: on PostgreSQL as the statement
 * `name` of the connection it gets; on SQLite (which ignores the name) at once when no transaction is open.
 */
export type NamedRunner = (query: CompiledQuery, name: string) => Promise<QueryResult<unknown>>;

const namedRunners = new WeakMap<DialectAdapter, NamedRunner>();

/**
 * PostgreSQL's database (database.ts) registers how to run a prepared query straight on its pool,
 * as a named statement: each connection parses and plans it once and then only binds values, and
 * the query skips Kysely's executor (its connection provider and promises). A session's turn
 * sends most of its statements outside a transaction (docs/decisions.md). Inside a transaction,
 * whose connection Kysely holds, queries keep going through Kysely. SQLite's registers one too
 * (database.ts): a prepared query outside a transaction runs at once while its one connection has
 * no transaction open, and waits behind Kysely's lock otherwise.
 */
export function registerNamedRunner(db: Kysely<Database>, runner: NamedRunner): void {
  namedRunners.set(db.getExecutor().adapter, runner);
}

let statementSerial = 0;

/** Texts given a name by `statementNameOf`: bounded, since each names a statement every connection keeps. */
const namesByText = new Map<string, string>();
const MAX_NAMED_TEXTS = 100;

/**
 * The statement name of a query whose text is built at each run from a few shapes (a call's end,
 * whose rollups are there or not), for `executeCompiled`: the same text, the same name. Past
 * `MAX_NAMED_TEXTS` texts, undefined: the query runs unnamed, as before.
 */
export function statementNameOf(text: string): string | undefined {
  let name = namesByText.get(text);
  if (name === undefined && namesByText.size < MAX_NAMED_TEXTS) namesByText.set(text, (name = `voxplan_${(statementSerial += 1)}`));
  return name;
}

/**
 * SQLite's database (database.ts) registers how to run a query straight on its one connection.
 * Kysely hands each query of a transaction to that connection through promises and its
 * connection's lock, some 8 µs a statement, while the transaction already holds it; a session's
 * turn runs ten or more statements in its transaction. Other queries outside a transaction keep
 * going through Kysely, whose lock keeps them from running inside another's open transaction.
 */
export function registerDirectRunner(db: Kysely<Database>, runner: DirectRunner): void {
  directRunners.set(db.getExecutor().adapter, runner);
}

/**
 * Runs `query` on `db`: directly when `db` is a transaction of a database that registered a
 * runner, or as the named statement `name` outside a transaction where the database registered
 * one for that; else through Kysely.
 */
export function executeCompiled<Row>(db: Kysely<Database>, query: CompiledQuery, name?: string): Promise<QueryResult<Row>> {
  if (name !== undefined && !db.isTransaction) {
    const named = namedRunners.get(db.getExecutor().adapter);
    if (named) return named(query, name) as Promise<QueryResult<Row>>;
  }
  if (db.isTransaction) {
    const direct = directRunners.get(db.getExecutor().adapter);
    if (direct) {
      try {
        return Promise.resolve(direct(query) as QueryResult<Row>);
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
  }
  return db.executeQuery<Row>(query);
}

/**
 * A query built with Kysely once per dialect and then run with new values, for the statements of
 * every turn of a session. Building and compiling a query costs more than running it on SQLite:
 * for the call report's insert of 28 columns, 150 µs against 50. `build` gets a placeholder for
 * each value, named as the values of the first run are; it must use every one of them, each as a
 * bound value (not in a raw SQL fragment, and not to choose the query's shape), and every later
 * run must give values of the same names.
 *
 * Transactions share their database's dialect adapter, so a query prepared on the database is
 * used as it is on its transactions.
 */
export function prepareQuery<Values extends object, Row>(build: (db: Kysely<Database>, values: Values) => Compilable<Row>): PreparedQuery<Values, Row> {
  let templates: Templates<Values, Row> | undefined;
  let names: string[] | undefined;

  // Not an async function: the run's promise is the query's own, without one more around it and
  // its microtasks (every uncached read by id, list and count runs here, issue 40). A caller out
  // of step is still a rejection.
  return (db, values) => {
    try {
      const given = values as Record<string, unknown>;
      names ??= Object.keys(given);
      templates ??= new Templates(build, names);
      // A value the query does not take would be dropped without a word: a caller out of step with the query.
      if (!takesExactly(given, names)) throw new Error(`a prepared query takes ${names.join(', ')}, given ${Object.keys(given).join(', ')}`);
      const { compiled, slots, name } = templates.of(db);
      const parameters = slots.map((slot, index) => (slot === null ? compiled.parameters[index] : given[names![slot]!]));
      return executeCompiled<Row>(db, { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, parameters }, name);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
}

/** A prepared query whose values come as an array, in the order of `names` (a query of many shapes, whose values are counted, not named). */
export type PositionalQuery<Row> = (db: Kysely<Database>, values: readonly unknown[]) => Promise<QueryResult<Row>>;

/**
 * `prepareQuery` for values given by position: `build` gets a placeholder for each of `names`.
 * A resource's read of a filter's shape has values `v0`, `v1`…: named, they made an object of
 * keys built at each request, which V8 keeps as a dictionary, and its reads cost more than the
 * query's binding (issue 40).
 */
export function preparePositionalQuery<Row>(names: readonly string[], build: (db: Kysely<Database>, values: Record<string, unknown>) => Compilable<Row>): PositionalQuery<Row> {
  const templates = new Templates<Record<string, unknown>, Row>(build, names);
  return (db, values) => {
    try {
      if (values.length !== names.length) throw new Error(`a prepared query takes ${names.length} values (${names.join(', ')}), given ${values.length}`);
      const { compiled, slots, name } = templates.of(db);
      const parameters = slots.map((slot, index) => (slot === null ? compiled.parameters[index] : values[slot]));
      return executeCompiled<Row>(db, { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, parameters }, name);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
}

/** A prepared query's compiled template per dialect, its parameters each the index of a value in `names` (null: the query's own constant). */
class Templates<Values, Row> {
  private readonly byAdapter = new WeakMap<DialectAdapter, Template>();

  constructor(
    private readonly build: (db: Kysely<Database>, values: Values) => Compilable<Row>,
    private readonly names: readonly string[],
  ) {}

  of(db: Kysely<Database>): Template {
    const adapter = db.getExecutor().adapter;
    let template = this.byAdapter.get(adapter);
    if (template) return template;
    const { names } = this;
    const placeholders = Object.fromEntries(names.map((name) => [name, { [NAME]: name } satisfies Placeholder])) as Values;
    const compiled = this.build(db, placeholders).compile();
    const slots = compiled.parameters.map((parameter) => (isPlaceholder(parameter) ? names.indexOf(parameter[NAME]) : null));
    const unused = names.filter((_, index) => !slots.includes(index));
    if (unused.length > 0) throw new Error(`a prepared query leaves out ${unused.join(', ')}: ${compiled.sql}`);
    template = { compiled, slots, name: `voxplan_${(statementSerial += 1)}` };
    this.byAdapter.set(adapter, template);
    return template;
  }
}

/** Whether `given`'s own keys are exactly `names`, without the arrays of `Object.keys` on every run. */
function takesExactly(given: Record<string, unknown>, names: readonly string[]): boolean {
  let count = 0;
  for (const key in given) {
    if (!Object.hasOwn(given, key)) continue;
    count++;
  }
  if (count !== names.length) return false;
  for (const name of names) if (!Object.hasOwn(given, name)) return false;
  return true;
}
