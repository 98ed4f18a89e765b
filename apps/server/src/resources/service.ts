import { type Condition, decodeJsonParam, type FieldMap, FilterError, filterLimits, type ParsedFilter, parseFilter, parseWhere } from '@voxplan/contracts';
import type { Compilable, Kysely, SelectQueryBuilder } from 'kysely';
import type { Scope } from '../platform.ts';
import { isForeignKeyViolation, uniqueViolationColumns } from '../db/constraint-errors.ts';
import { type PreparedQuery, prepareQuery } from '../db/prepared.ts';
import { sharedTransactionRunner } from '../db/write-batch.ts';
import { AppError, badRequest, conflict, notFound } from '../errors.ts';
import { nowIso } from '../lib/time.ts';
import { type AuditChange, maskFields, recordAudit } from './audit.recorder.ts';
import { assertAllowed, tenantFilterOf } from '../plugins/auth.ts';
import type { ResourceDefinition, ResourceHost, Row, Values, WriteContext } from './definition.ts';
import { applyOrder, compileCondition, conditionShape, type DerivedColumns, fillShape } from './filter-sql.ts';

// Kysely is typed per table; this layer serves every table, and checks every column name it uses
// against the resource's field map before it reaches a query.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type LooseDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type -- a select of any resource table, nothing selected yet
type LooseSelect = SelectQueryBuilder<any, any, {}>;

/** Queries compiled once per shape (of a filter, of the columns written): a bounded number per resource, oldest out first. */
const MAX_SHAPES = 500;

/** The query kept under `key`, made by `make` the first time. */
function compiledFor<V extends object, R>(kept: Map<string, PreparedQuery<V, R>>, key: string, make: () => PreparedQuery<V, R>): PreparedQuery<V, R> {
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
function boundValues(row: Values): Values | undefined {
  const values: Values = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    if (typeof value === 'object' && value !== null && !(value instanceof Uint8Array)) return undefined;
    values[column] = value;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}

/** The name a compiled update gives the id of the row it updates: no column is called so. */
const WHERE_ID = 'where id';

const NUL = '\u0000';

/** Where a written value holds the NUL character, which PostgreSQL text cannot store. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulPath(item, `${path}.${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = nulPath(item, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Refused alike on both databases (SQLite would store it, PostgreSQL fails). */
export function assertStorable(input: Values): void {
  const path = nulPath(input, '');
  if (path !== undefined) throw badRequest('invalid_input', [{ path, message: 'text may not contain the NUL character' }]);
}

function namesField(condition: Condition, field: string): boolean {
  if ('items' in condition) return condition.items.some((item) => namesField(item, field));
  return condition.field === field;
}

export class ResourceService<Out> {
  /** What a where clause may name: the columns and the derived fields. */
  private readonly fields: FieldMap;
  /** What a list may be ordered by: the columns only. */
  private readonly orderFields: FieldMap;
  private readonly derived: DerivedColumns;
  // A record by id is what get, patch and remove all start with: built and compiled once.
  private readonly rowById: PreparedQuery<{ id: number }, Row>;
  private readonly rowByIdInTenant: PreparedQuery<{ tenantId: number; id: number }, Row>;
  private readonly shapedReads = new Map<string, PreparedQuery<Record<string, unknown>, Row>>();
  /** Inserts and updates compiled once per set of columns they write (a few per resource). */
  private readonly inserts = new Map<string, PreparedQuery<Values, Row>>();
  private readonly updates = new Map<string, PreparedQuery<Values, unknown>>();

  constructor(
    readonly definition: ResourceDefinition<Out>,
    private readonly app: ResourceHost,
  ) {
    const derivedFields = Object.entries(definition.derivedFields ?? {});
    this.fields = { ...definition.fields, ...Object.fromEntries(derivedFields.map(([field, { type }]) => [field, type])) };
    this.orderFields = definition.fields;
    this.derived = Object.fromEntries(derivedFields.map(([field, derived]) => [field, derived.sql]));
    const { table } = definition;
    this.rowById = prepareQuery<{ id: number }, Row>((db, { id }) => (db as LooseDb).selectFrom(table).selectAll().where('id', '=', id));
    this.rowByIdInTenant = prepareQuery<{ tenantId: number; id: number }, Row>((db, { tenantId, id }) =>
      (db as LooseDb).selectFrom(table).selectAll().where('tenant_id', '=', tenantId).where('id', '=', id),
    );
  }

  private get db(): LooseDb {
    return this.app.db as LooseDb;
  }

  /** The tenant rows must belong to, or undefined when the scope sees every tenant. */
  private tenantFilter(scope: Scope): number | undefined {
    return this.definition.tenantOwned ? tenantFilterOf(scope) : undefined;
  }

  /** The where clause with the resource's defaults for the fields it does not name. */
  private withDefaults(where: Condition | undefined): Condition | undefined {
    const defaults = Object.entries(this.definition.defaultWhere ?? {})
      .filter(([field]) => !where || !namesField(where, field))
      .map(([field, value]): Condition => ({ kind: 'compare', field, op: 'eq', value }));
    if (defaults.length === 0) return where;
    const items = where ? [where, ...defaults] : defaults;
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private scopedSelect(db: LooseDb, scope: Scope, where?: Condition): LooseSelect {
    return this.selectIn(db, this.tenantFilter(scope), where);
  }

  /** `tenantId`: the tenant, or what stands for it in a query compiled once; undefined for every tenant. */
  private selectIn(db: LooseDb, tenantId: unknown, where?: Condition): LooseSelect {
    let query = db.selectFrom(this.definition.table);
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    if (where) query = query.where((eb) => compileCondition(eb, where, this.app.dialect, this.derived));
    return query;
  }

  /** Stored rows as the client sees them. */
  async present(rows: Row[], db: LooseDb = this.db): Promise<Out[]> {
    if (this.definition.present) return this.definition.present(rows, db, this.app);
    return rows as Out[];
  }

  private snapshot(out: Out | undefined): unknown {
    return out === undefined ? null : maskFields(out, this.definition.secretFields ?? []);
  }

  private auditTenant(row: Row, scope: Scope): number | null {
    if (this.definition.tenantOwned) return row.tenant_id as number;
    if (this.definition.auditTenant) return this.definition.auditTenant(row);
    return scope.tenantId;
  }

  private checkRead(scope: Scope) {
    assertAllowed(scope.actor, this.definition.read, false);
  }

  private checkWrite(scope: Scope) {
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

  /** The tables an answer depends on: a write to any of them drops it from the read cache. */
  private get readTables(): readonly string[] {
    return [this.definition.table, ...(this.definition.readTables ?? [])];
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

  /** `where`: the JSON text of the query string's `where`, or nothing. */
  async count(scope: Scope, where: string | undefined): Promise<number> {
    this.checkRead(scope);
    return this.cachedRead('count', scope, where ?? '', async () => {
      const condition = this.withDefaults(parseWhere(decodeJsonParam(where, 'where'), this.fields));
      const [row] = await this.readShaped(scope, condition, 'count', (query) => query.select((eb) => eb.fn.countAll().as('count')));
      return Number(row!.count);
    });
  }

  /** `filter`: the JSON text of the query string's `filter`, or nothing. */
  async list(scope: Scope, filter: string | undefined): Promise<Out[]> {
    this.checkRead(scope);
    return this.cachedRead('list', scope, filter ?? '', async () => {
      const parsed = this.parseFilter(decodeJsonParam(filter, 'filter'));
      const order = parsed.order.length > 0 ? parsed.order : (this.definition.defaultOrder ?? []);
      // Without a limit a list answers at most the largest page a filter may ask for.
      const { listColumns } = this.definition;
      const where = this.withDefaults(parsed.where);
      const paging: Record<string, number> = { limit: parsed.limit ?? filterLimits.maxLimit };
      if (parsed.skip > 0) paging.skip = parsed.skip;
      const rows = await this.readShaped(
        scope,
        where,
        `list\u0000${JSON.stringify(order)}\u0000${parsed.skip > 0}`,
        (query, values) => {
          const selected = listColumns ? query.select([...listColumns]) : query.selectAll();
          const limited = applyOrder(selected, order, this.orderFields).limit(values.limit as number);
          return 'skip' in values ? limited.offset(values.skip as number) : limited;
        },
        paging,
      );
      return this.present(rows);
    });
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
  private async readShaped(
    scope: Scope,
    condition: Condition | undefined,
    kind: string,
    finish: (query: LooseSelect, values: Record<string, unknown>) => Compilable<unknown>,
    extra: Record<string, number> = {},
  ): Promise<Row[]> {
    const tenantId = this.tenantFilter(scope);
    const shape = conditionShape(condition);
    const key = `${kind}\u0000${tenantId === undefined ? '*' : 'tenant'}\u0000${shape.key}`;
    const { template } = shape;
    const query = compiledFor(this.shapedReads, key, () =>
      prepareQuery<Record<string, unknown>, Row>((db, placeholders) => {
        const where = fillShape(template, (index) => placeholders[`v${index}`]);
        return finish(this.selectIn(db as LooseDb, tenantId === undefined ? undefined : placeholders.tenant, where), placeholders) as Compilable<Row>;
      }),
    );
    const values: Record<string, unknown> = { ...extra };
    if (tenantId !== undefined) values.tenant = tenantId;
    for (const [index, value] of shape.values.entries()) values[`v${index}`] = value;
    return (await query(this.db, values)).rows;
  }

  /** The row with this id in the caller's scope; 404 when there is none. */
  async findRow(db: LooseDb, scope: Scope, id: number): Promise<Row> {
    const tenantId = this.tenantFilter(scope);
    const { rows } = tenantId === undefined ? await this.rowById(db, { id }) : await this.rowByIdInTenant(db, { tenantId, id });
    const [row] = rows;
    if (!row) throw notFound(this.definition.notFoundCode);
    return row;
  }

  async get(scope: Scope, id: number): Promise<Out> {
    this.checkRead(scope);
    return this.cachedRead('get', scope, String(id), async () => {
      const [out] = await this.present([await this.findRow(this.db, scope, id)]);
      return out!;
    });
  }

  /**
   * Runs a write all or nothing; constraint violations become the resource's codes. On SQLite the
   * writes of one pass of the event loop share a transaction, each in a savepoint of its own
   * (db/write-batch.ts), so `work` must only use the database, through `trx`.
   * `removing`: the write removes rows, so a foreign key violation means a row still refers to one.
   */
  async inTransaction<T>(scope: Scope, work: (write: WriteContext) => Promise<T>, removing = false): Promise<T> {
    try {
      return await sharedTransactionRunner(this.app.db, this.app.dialect).run((trx) => work({ app: this.app, scope, trx }));
    } catch (error) {
      throw this.translateConstraintError(error, removing);
    }
  }

  private translateConstraintError(error: unknown, removing: boolean): unknown {
    if (error instanceof AppError) return error;
    const columns = uniqueViolationColumns(error);
    if (columns) {
      const rule = this.definition.unique?.find(
        (candidate) => candidate.columns.length === columns.length && candidate.columns.every((c) => columns.includes(c)),
      );
      const field = columns.filter((c) => c !== 'tenant_id').join(', ');
      return conflict(rule?.code ?? 'name_already_exists', [{ path: field, message: 'already exists' }]);
    }
    if (isForeignKeyViolation(error)) {
      // Writing, the only reference a client's request can break is its tenant, removed meanwhile;
      // removing, a row written since beforeDelete looked still refers to the one going.
      return removing ? conflict(this.definition.inUseCode ?? 'record_in_use') : badRequest('tenant_not_found');
    }
    return error;
  }

  private async values(input: Values, write: WriteContext, before?: Row): Promise<Values> {
    return this.definition.toValues ? this.definition.toValues(input, write, before) : input;
  }

  /**
   * Refuses a create before anything is read or made: the role, and for tenant-owned rows a tenant
   * to put them in. Answers that tenant (undefined for rows that belong to none).
   */
  assertCreatable(scope: Scope): number | undefined {
    this.checkWrite(scope);
    if (!this.definition.tenantOwned) return undefined;
    const tenantId = this.tenantFilter(scope);
    if (tenantId === undefined) throw badRequest('no_tenant_provided');
    return tenantId;
  }

  /**
   * Inserts a row, with its audit entry, in one transaction. `afterInsert` writes what belongs with
   * the row but is not part of it (an audio's bytes), in the same transaction.
   */
  async create(scope: Scope, input: Values, afterInsert?: (row: Row, write: WriteContext) => Promise<void>): Promise<Out> {
    const tenantId = this.assertCreatable(scope);
    assertStorable(input);
    return this.inTransaction(scope, async (write) => {
      await this.definition.beforeCreate?.(write);
      const now = nowIso();
      const timestamps = this.definition.timestamps ?? { created: true, updated: true };
      const row = {
        ...(await this.values(input, write)),
        ...(tenantId !== undefined && { tenant_id: tenantId }),
        ...(timestamps.created && { created_time: now }),
        ...(timestamps.updated && { updated_time: now }),
      };
      const inserted = await this.insertRow(write.trx as LooseDb, row);
      await this.definition.afterWrite?.(inserted.id, input, write);
      await afterInsert?.(inserted, write);
      const [out] = await this.present([inserted], write.trx as LooseDb);
      await recordAudit(write.trx, scope, [
        {
          action: 'create',
          entity: this.definition.entity,
          entityId: inserted.id,
          tenantId: this.auditTenant(inserted, scope),
          before: null,
          after: this.snapshot(out),
        },
      ]);
      return out!;
    });
  }

  /** Updates the rows and audits each change; answers the rows as they are now, as the client sees them. */
  /** Inserts one row and answers it as stored. */
  private async insertRow(trx: LooseDb, row: Values): Promise<Row> {
    const { table } = this.definition;
    const values = boundValues(row);
    if (!values) return (await trx.insertInto(table).values(row).returningAll().executeTakeFirstOrThrow()) as Row;
    const insert = compiledFor(this.inserts, Object.keys(values).join(','), () =>
      prepareQuery<Values, Row>((db, placeholders) => (db as LooseDb).insertInto(table).values(placeholders).returningAll()),
    );
    const [inserted] = (await insert(trx, values)).rows;
    if (!inserted) throw new Error(`inserting into ${table} answered no row`);
    return inserted;
  }

  /** Updates one row's columns. */
  private async updateRow(trx: LooseDb, id: number, row: Values): Promise<void> {
    const { table } = this.definition;
    const values = boundValues(row);
    if (!values) {
      await trx.updateTable(table).set(row).where('id', '=', id).execute();
      return;
    }
    const update = compiledFor(this.updates, Object.keys(values).join(','), () =>
      prepareQuery<Values, unknown>((db, { [WHERE_ID]: rowId, ...columns }) => (db as LooseDb).updateTable(table).set(columns).where('id', '=', rowId)),
    );
    await update(trx, { ...values, [WHERE_ID]: id });
  }

  private async updateRows(write: WriteContext, rows: Row[], input: Values): Promise<Out[]> {
    const trx = write.trx as LooseDb;
    const timestamps = this.definition.timestamps ?? { created: true, updated: true };
    const beforeOut = await this.present(rows, trx);
    const changes: AuditChange[] = [];
    const afterOuts: Out[] = [];
    for (const [index, row] of rows.entries()) {
      const values = { ...(await this.values(input, write, row)), ...(timestamps.updated && { updated_time: nowIso() }) };
      if (Object.keys(values).length > 0) {
        await this.updateRow(trx, row.id, values);
      }
      await this.definition.afterWrite?.(row.id, input, write);
      const [after] = (await this.rowById(trx, { id: row.id })).rows;
      if (!after) throw new Error(`${this.definition.table} ${row.id} is gone in the middle of its own update`);
      const [afterOut] = await this.present([after], trx);
      afterOuts.push(afterOut!);
      changes.push({
        action: 'update',
        entity: this.definition.entity,
        entityId: row.id,
        tenantId: this.auditTenant(after, write.scope),
        before: this.snapshot(beforeOut[index]),
        after: this.snapshot(afterOut),
      });
    }
    await recordAudit(write.trx, write.scope, changes);
    return afterOuts;
  }

  async patch(scope: Scope, id: number, input: Values): Promise<Out> {
    this.checkWrite(scope);
    return this.patchRow(scope, id, input);
  }

  /** A user editing their own record: allowed whatever the role rules for the resource say. */
  async patchAsOwner(scope: Scope, id: number, input: Values): Promise<Out> {
    return this.patchRow(scope, id, input);
  }

  private async patchRow(scope: Scope, id: number, input: Values): Promise<Out> {
    assertStorable(input);
    return this.inTransaction(scope, async (write) => {
      const row = await this.findRow(write.trx as LooseDb, scope, id);
      // The row as updated was read back and presented for the audit entry: that is the answer.
      const [out] = await this.updateRows(write, [row], input);
      return out!;
    });
  }

  async patchMany(scope: Scope, where: unknown, input: Values): Promise<number> {
    this.checkWrite(scope);
    const condition = parseWhere(where, this.fields);
    assertStorable(input);
    return this.inTransaction(scope, async (write) => {
      const rows = (await this.scopedSelect(write.trx as LooseDb, scope, condition).selectAll().orderBy('id').execute()) as Row[];
      await this.updateRows(write, rows, input);
      return rows.length;
    });
  }

  private async deleteRows(write: WriteContext, rows: Row[]): Promise<number> {
    if (rows.length === 0) return 0;
    await this.definition.beforeDelete?.(rows, write);
    const trx = write.trx as LooseDb;
    const before = await this.present(rows, trx);
    await trx
      .deleteFrom(this.definition.table)
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    await recordAudit(
      write.trx,
      write.scope,
      rows.map((row, index) => ({
        action: 'delete',
        entity: this.definition.entity,
        entityId: row.id,
        tenantId: this.auditTenant(row, write.scope),
        before: this.snapshot(before[index]),
        after: null,
      })),
    );
    return rows.length;
  }

  async remove(scope: Scope, id: number): Promise<void> {
    this.checkWrite(scope);
    await this.inTransaction(
      scope,
      async (write) => {
        const row = await this.findRow(write.trx as LooseDb, scope, id);
        await this.deleteRows(write, [row]);
      },
      true,
    );
  }

  async removeMany(scope: Scope, ids: number[]): Promise<number> {
    this.checkWrite(scope);
    return this.inTransaction(
      scope,
      async (write) => {
        const rows = (await this.scopedSelect(write.trx as LooseDb, scope)
          .selectAll()
          .where('id', 'in', ids)
          .orderBy('id')
          .execute()) as Row[];
        return this.deleteRows(write, rows);
      },
      true,
    );
  }
}
