import { parseWhere } from '@voxplan/contracts';
import type { Scope } from '../platform.ts';
import { isForeignKeyViolation, uniqueViolationColumns } from '../db/constraint-errors.ts';
import { type PreparedQuery, prepareQuery } from '../db/prepared.ts';
import { sharedTransactionRunner } from '../db/write-batch.ts';
import { AppError, badRequest, conflict } from '../errors.ts';
import { nowIso } from '../lib/time.ts';
import { type AuditChange, maskFields, recordAudit } from './audit.recorder.ts';
import { boundValues, compiledFor, type LooseDb, WHERE_ID } from './compiled-queries.ts';
import type { Row, Values, WriteContext } from './definition.ts';
import { ResourceReads } from './reads.ts';
import { assertStorable } from './storable.ts';

// Modules import the service and the check of what may be stored from here.
export { assertStorable } from './storable.ts';

/** A resource's reads (reads.ts) and its writes: create, patch, remove, each with its audit entries, all or nothing. */
export class ResourceService<Out> extends ResourceReads<Out> {
  /** Inserts and updates compiled once per set of columns they write (a few per resource). */
  private readonly inserts = new Map<string, PreparedQuery<Values, Row>>();
  private readonly updates = new Map<string, PreparedQuery<Values, Row>>();

  private snapshot(out: Out | undefined): unknown {
    return out === undefined ? null : maskFields(out, this.definition.secretFields ?? []);
  }

  private auditTenant(row: Row, scope: Scope): number | null {
    if (this.definition.tenantOwned) return row.tenant_id as number;
    if (this.definition.auditTenant) return this.definition.auditTenant(row);
    return scope.tenantId;
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
      await this.definition.afterWrite?.(inserted.id, input, write, { values: row });
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

  /** Updates one row's columns; answers the row as it is now (RETURNING: no second statement to read it back). */
  private async updateRow(trx: LooseDb, id: number, row: Values): Promise<Row | undefined> {
    const { table } = this.definition;
    const values = boundValues(row);
    if (!values) return (await trx.updateTable(table).set(row).where('id', '=', id).returningAll().executeTakeFirst()) as Row | undefined;
    const update = compiledFor(this.updates, Object.keys(values).join(','), () =>
      prepareQuery<Values, Row>((db, { [WHERE_ID]: rowId, ...columns }) => (db as LooseDb).updateTable(table).set(columns).where('id', '=', rowId).returningAll()),
    );
    return (await update(trx, { ...values, [WHERE_ID]: id })).rows[0];
  }

  /** Updates the rows and audits each change; answers the rows as they are now, as the client sees them. */
  private async updateRows(write: WriteContext, rows: Row[], input: Values): Promise<Out[]> {
    const trx = write.trx as LooseDb;
    const timestamps = this.definition.timestamps ?? { created: true, updated: true };
    const beforeOut = await this.present(rows, trx);
    const changes: AuditChange[] = [];
    const afterOuts: Out[] = [];
    for (const [index, row] of rows.entries()) {
      const values = { ...(await this.values(input, write, row)), ...(timestamps.updated && { updated_time: nowIso() }) };
      // The row as the update left it (afterWrite writes other tables only), read back when nothing was written.
      const after = Object.keys(values).length > 0 ? await this.updateRow(trx, row.id, values) : (await this.rowById(trx, { id: row.id })).rows[0];
      await this.definition.afterWrite?.(row.id, input, write, { values, before: row });
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
