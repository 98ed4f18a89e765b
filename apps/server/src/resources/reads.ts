import { type Condition, decodeJsonParam, type FieldMap, FilterError, filterLimits, type ParsedFilter, parseFilter, parseWhere } from '@voxplan/contracts';
import type { Compilable, QueryResult } from 'kysely';
import type { Scope } from '../platform.ts';
import { type PositionalQuery, type PreparedQuery, prepareQuery, preparePositionalQuery } from '../db/prepared.ts';
import { notFound } from '../errors.ts';
import { assertAllowed, tenantFilterOf } from '../plugins/auth.ts';
import { compiledFor, type LooseDb, type LooseSelect } from './compiled-queries.ts';
import type { ResourceDefinition, ResourceHost, Row } from './definition.ts';
import { applyOrder, compileCondition, conditionShape, type DerivedColumns, fillShape } from './filter-sql.ts';

/** A shaped read's values beyond its tenant's and its condition's: none (a count). */
const NO_EXTRA: Record<string, number> = Object.freeze({});

function namesField(condition: Condition, field: string): boolean {
  if ('items' in condition) return condition.items.some((item) => namesField(item, field));
  return condition.field === field;
}

/**
 * A resource's reads: the role and tenant checks, lists and counts by filter (compiled once per
 * shape), a record by id, through the read cache. ResourceService (service.ts) adds the writes.
 */
export class ResourceReads<Out> {
  /** What a where clause may name: the columns and the derived fields. */
  protected readonly fields: FieldMap;
  /** What a list may be ordered by: the columns only. */
  protected readonly orderFields: FieldMap;
  private readonly derived: DerivedColumns;
  // A record by id is what get, patch and remove all start with: built and compiled once.
  protected readonly rowById: PreparedQuery<{ id: number }, Row>;
  private readonly rowByIdInTenant: PreparedQuery<{ tenantId: number; id: number }, Row>;
  private readonly shapedReads = new Map<string, PositionalQuery<Row>>();
  /** The tables an answer depends on: a write to any of them drops it from the read cache. Made once, not on every read. */
  private readonly readTables: readonly string[];

  constructor(
    readonly definition: ResourceDefinition<Out>,
    protected readonly app: ResourceHost,
  ) {
    const derivedFields = Object.entries(definition.derivedFields ?? {});
    this.fields = { ...definition.fields, ...Object.fromEntries(derivedFields.map(([field, { type }]) => [field, type])) };
    this.orderFields = definition.fields;
    this.derived = Object.fromEntries(derivedFields.map(([field, derived]) => [field, derived.sql]));
    const { table } = definition;
    this.readTables = [table, ...(definition.readTables ?? [])];
    this.rowById = prepareQuery<{ id: number }, Row>((db, { id }) => (db as LooseDb).selectFrom(table).selectAll().where('id', '=', id));
    this.rowByIdInTenant = prepareQuery<{ tenantId: number; id: number }, Row>((db, { tenantId, id }) =>
      (db as LooseDb).selectFrom(table).selectAll().where('tenant_id', '=', tenantId).where('id', '=', id),
    );
  }

  protected get db(): LooseDb {
    return this.app.db as LooseDb;
  }

  /** The tenant rows must belong to, or undefined when the scope sees every tenant. */
  protected tenantFilter(scope: Scope): number | undefined {
    return this.definition.tenantOwned ? tenantFilterOf(scope) : undefined;
  }

  /** The where clause with the resource's defaults for the fields it does not name. */
  private withDefaults(where: Condition | undefined): Condition | undefined {
    // Most resources have none: no arrays made on every list and count for nothing.
    const { defaultWhere } = this.definition;
    if (defaultWhere === undefined) return where;
    const defaults = Object.entries(defaultWhere)
      .filter(([field]) => !where || !namesField(where, field))
      .map(([field, value]): Condition => ({ kind: 'compare', field, op: 'eq', value }));
    if (defaults.length === 0) return where;
    const items = where ? [where, ...defaults] : defaults;
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  protected scopedSelect(db: LooseDb, scope: Scope, where?: Condition): LooseSelect {
    return this.selectIn(db, this.tenantFilter(scope), where);
  }

  /** `tenantId`: the tenant, or what stands for it in a query compiled once; undefined for every tenant. */
  private selectIn(db: LooseDb, tenantId: unknown, where?: Condition): LooseSelect {
    let query = db.selectFrom(this.definition.table);
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    if (where) query = query.where((eb) => compileCondition(eb, where, this.app.dialect, this.derived));
    return query;
  }

  /**
   * Stored rows as the client sees them: at once when the resource presents them without a query
   * (no promise to wait for on an uncached GET by id, issue 40), otherwise when its query answers.
   */
  present(rows: Row[], db: LooseDb = this.db): Promise<Out[]> | Out[] {
    if (this.definition.present) return this.definition.present(rows, db, this.app);
    return rows as Out[];
  }

  private checkRead(scope: Scope) {
    assertAllowed(scope.actor, this.definition.read, false);
  }

  protected checkWrite(scope: Scope) {
    assertAllowed(scope.actor, this.definition.write, true);
  }

  assertWritable(scope: Scope): void {
    this.checkWrite(scope);
  }

  assertReadable(scope: Scope): void {
    this.checkRead(scope);
  }

  parseFilter(filter: unknown): ParsedFilter {
    const parsed = parseFilter(filter, this.fields);
    const derivedTerm = parsed.order.findIndex((term) => !Object.hasOwn(this.orderFields, term.field));
    if (derivedTerm >= 0) throw new FilterError(`a list cannot be ordered by '${parsed.order[derivedTerm]!.field}'`, `order[${derivedTerm}]`);
    return parsed;
  }

  /**
   * Reads by the caller's tenant and the request's own terms, answered from the cache when nothing
   * they read changed. The terms are the text the request carried, so a repeated request is
   * answered without its JSON being parsed: the same filter written twice differently is cached
   * twice, with the same answer.
   */
  private cachedRead<T>(operation: string, scope: Scope, terms: string, load: () => Promise<T>): Promise<T> {
    // An answer with links that expire is kept within one half of their lifetime: a later request asks anew.
    const { presentedFor } = this.definition;
    const window = presentedFor === undefined ? '' : `\u0000${Math.floor(Date.now() / ((presentedFor * 1000) / 2))}`;
    const key = `${this.definition.table}\u0000${operation}\u0000${this.tenantFilter(scope) ?? '*'}\u0000${terms}${window}`;
    return this.app.readCache.read(key, this.readTables, load);
  }

  /** `where`: the JSON text of the query string's `where`, or nothing. Promises chained, as in `get`. */
  count(scope: Scope, where: string | undefined): Promise<number> {
    try {
      this.checkRead(scope);
      return this.cachedRead('count', scope, where ?? '', () => {
        const condition = this.withDefaults(parseWhere(decodeJsonParam(where, 'where'), this.fields));
        return this.readShaped(scope, condition, 'count', (query) => query.select((eb) => eb.fn.countAll().as('count'))).then(({ rows: [row] }) => Number(row!.count));
      });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** `filter`: the JSON text of the query string's `filter`, or nothing. Promises chained, as in `get`. */
  list(scope: Scope, filter: string | undefined): Promise<Out[]> {
    try {
      this.checkRead(scope);
      return this.cachedRead('list', scope, filter ?? '', () => this.loadList(scope, filter));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private loadList(scope: Scope, filter: string | undefined): Promise<Out[]> {
    try {
      const parsed = this.parseFilter(decodeJsonParam(filter, 'filter'));
      const order = parsed.order.length > 0 ? parsed.order : (this.definition.defaultOrder ?? []);
      // Without a limit a list answers at most the largest page a filter may ask for.
      const { listColumns } = this.definition;
      const where = this.withDefaults(parsed.where);
      const paging: Record<string, number> = { limit: parsed.limit ?? filterLimits.maxLimit };
      if (parsed.skip > 0) paging.skip = parsed.skip;
      return this.readShaped(
        scope,
        where,
        `list\u0000${JSON.stringify(order)}\u0000${parsed.skip > 0}`,
        (query, values) => {
          const selected = listColumns ? query.select([...listColumns]) : query.selectAll();
          const limited = applyOrder(selected, order, this.orderFields).limit(values.limit as number);
          return 'skip' in values ? limited.offset(values.skip as number) : limited;
        },
        paging,
      ).then(({ rows }) => this.present(rows));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Every row a filter's where clause selects in the caller's scope, newest first (the resource's
   * default order, whose terms must share one direction and end with `id`), read `pageSize` at a
   * time by keyset so that the whole set is never in memory. `total` is how many pages will hold:
   * the rows that existed when it was counted (later ones have a higher id and are left out).
   * The filter's `order`, `limit` and `skip` are not used.
   */
  async readAllPages(scope: Scope, filter: string | undefined, pageSize: number): Promise<{ total: number; pages: AsyncGenerator<Out[]> }> {
    this.checkRead(scope);
    const order = this.definition.defaultOrder ?? [];
    const direction = order[0]?.direction;
    if (order.at(-1)?.field !== 'id' || order.some((term) => term.direction !== direction)) {
      throw new Error(`${this.definition.table}: reading every page needs a default order of one direction ending with id`);
    }
    const where = this.withDefaults(this.parseFilter(decodeJsonParam(filter, 'filter')).where);
    const db = this.db;
    const tenantId = this.tenantFilter(scope);
    const counted = await this.selectIn(db, tenantId, where)
      .select((eb) => [eb.fn.countAll().as('count'), eb.fn.max('id').as('max_id')])
      .executeTakeFirstOrThrow();
    const total = Number(counted.count);
    const maxId = counted.max_id === null ? 0 : Number(counted.max_id);
    const fields = order.map((term) => term.field);
    const comparison = direction === 'desc' ? '<' : '>';
    const present = (rows: Row[]) => this.present(rows);
    const pageAfter = (after: Row | undefined) => {
      let query = this.selectIn(db, tenantId, where).selectAll().where('id', '<=', maxId);
      // A row value comparison: one index range from where the last page stopped.
      if (after) query = query.where((eb) => eb(eb.refTuple(...(fields as [string, string])), comparison, eb.tuple(...(fields.map((field) => after[field]) as [unknown, unknown]))));
      for (const term of order) query = query.orderBy(term.field, term.direction);
      return query.limit(pageSize);
    };
    async function* pages(): AsyncGenerator<Out[]> {
      if (total === 0) return;
      let last: Row | undefined;
      for (;;) {
        const rows = (await pageAfter(last).execute()) as Row[];
        if (rows.length > 0) yield await present(rows);
        if (rows.length < pageSize) return;
        last = rows.at(-1);
      }
    }
    return { total, pages: pages() };
  }

  /**
   * Runs a read of the caller's scope with a filter's condition, compiled once per shape of the
   * condition (filter-sql.ts) and of what `finish` adds, which `kind` must tell apart; `finish`
   * gets the values of `extra` as bound values, under the same names.
   */
  private readShaped(
    scope: Scope,
    condition: Condition | undefined,
    kind: string,
    finish: (query: LooseSelect, values: Record<string, unknown>) => Compilable<unknown>,
    extra: Record<string, number> = NO_EXTRA,
  ): Promise<QueryResult<Row>> {
    const tenantId = this.tenantFilter(scope);
    const shape = conditionShape(condition);
    const key = `${kind}\u0000${tenantId === undefined ? '*' : 'tenant'}\u0000${shape.key}`;
    // The values by position: the tenant, the condition's, then `extra`'s (the key fixes which there are).
    const query = compiledFor(this.shapedReads, key, () => {
      // Made here, once per shape: the template is a copy of the condition (filter-sql.ts).
      const { template } = shape;
      const names = [...(tenantId === undefined ? [] : ['tenant']), ...shape.values.map((_, index) => `v${index}`), ...Object.keys(extra)];
      return preparePositionalQuery<Row>(names, (db, placeholders) => {
        const where = fillShape(template, (index) => placeholders[`v${index}`]);
        return finish(this.selectIn(db as LooseDb, tenantId === undefined ? undefined : placeholders.tenant, where), placeholders) as Compilable<Row>;
      });
    });
    const values: unknown[] = tenantId === undefined ? [] : [tenantId];
    for (const value of shape.values) values.push(value);
    for (const name in extra) values.push(extra[name]);
    // The query's own promise: its caller reads the rows in the one `then` it needs anyway (issue 40).
    return query(this.db, values);
  }

  /**
   * The row with this id in the caller's scope; 404 when there is none. Here and in `get`, promises
   * chained rather than async functions awaited: each layer of those is a promise and microtasks
   * more on every uncached GET by id (issue 40). A refusal is a rejection all the same.
   */
  findRow(db: LooseDb, scope: Scope, id: number): Promise<Row> {
    try {
      return this.readRow(db, scope, id).then(({ rows }) => rows[0] ?? Promise.reject(notFound(this.definition.notFoundCode)));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The query of the row with this id in the caller's scope (none when there is none); a refusal of the scope is thrown. */
  private readRow(db: LooseDb, scope: Scope, id: number): Promise<QueryResult<Row>> {
    const tenantId = this.tenantFilter(scope);
    return tenantId === undefined ? this.rowById(db, { id }) : this.rowByIdInTenant(db, { tenantId, id });
  }

  get(scope: Scope, id: number): Promise<Out> {
    try {
      this.checkRead(scope);
      // The row found and presented in the query's one `then`, not findRow's and another.
      return this.cachedRead('get', scope, String(id), () =>
        this.readRow(this.db, scope, id).then(({ rows: [row] }) => {
          if (!row) throw notFound(this.definition.notFoundCode);
          const presented = this.present([row]);
          return Array.isArray(presented) ? presented[0]! : presented.then(([out]) => out!);
        }),
      );
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
