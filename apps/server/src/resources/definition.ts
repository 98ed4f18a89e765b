import type { ErrorCode, FieldMap, FieldType, OrderTerm, Scalar } from '@voxplan/contracts';
import type { Kysely, RawBuilder } from 'kysely';
import type { z } from 'zod';
import type { Database, TableName } from '../db/schema.ts';
import type { Access } from '../plugins/auth.ts';
import type { PlatformContext, Scope } from '../platform.ts';

export type Row = Record<string, unknown> & { id: number };

/** A table with a tenant_id column: its rows are some tenant's. */
export type TableWithTenant = { [T in TableName]: Database[T] extends { tenant_id: number } ? T : never }[TableName];
export type Values = Record<string, unknown>;

/**
 * What a resource's hooks and presenters get of the app: the process's part, and narrow ports of
 * the modules' services, which the app's context (context.ts) fills in whole.
 */
export interface ResourceHost extends PlatformContext {
  license: {
    /** Refuses (403) a create past the licence's count; `db` is the create's transaction. */
    assertRoom(kind: 'tenants' | 'numbers', db: Kysely<Database>): Promise<void>;
  };
  /** The providers' channels, as far as a resource asks: the kinds of session one runs, and whether it dials. */
  channels: { get(provider: string): { sessions: readonly string[]; dial?: object } | undefined };
}

export interface WriteContext {
  app: ResourceHost;
  scope: Scope;
  trx: Kysely<Database>;
}

/**
 * One resource of the generic API (spec section 7). The generic layer gives it count, list, get,
 * create, patch, bulk patch, delete and bulk delete, with filters, tenant scope, roles and audit;
 * the definition says only what is particular to it.
 */
export interface ResourceDefinition<Out = unknown> {
  /** Singular, as written to the audit log. */
  entity: string;
  /** Under /api/v1. */
  path: string;
  table: TableName;
  /** Rows carry tenant_id and are confined to the caller's tenant. */
  tenantOwned: boolean;
  read: Access;
  write: Access;
  /** Only the read calls exist (e.g. the audit log). */
  readOnly?: boolean;
  /** The columns a filter may name, with their types. */
  fields: FieldMap;
  /**
   * Fields a where clause may name that are no column of the table but a value read from another
   * (a report's agent, from its chat's conversation): filters only, a list is not ordered by them.
   */
  derivedFields?: Readonly<Record<string, { type: FieldType; sql: RawBuilder<unknown> }>>;
  defaultOrder?: OrderTerm[];
  /**
   * Equalities that lists and counts apply unless their where clause names the field anywhere
   * (test sessions' reports stay out unless `is_test` is asked for). A record by id is found either way.
   */
  defaultWhere?: Readonly<Record<string, Scalar>>;
  output: z.ZodType<Out>;
  /** Absent: no generic POST; rows are made by the resource's own routes (audios are uploaded). */
  createInput?: z.ZodType;
  updateInput: z.ZodType;
  /** Unique indexes and the code a duplicate answers with. */
  unique?: { columns: string[]; code: ErrorCode }[];
  /** What a missing or out-of-scope id answers (404); not_found unless the catalogue has one of its own. */
  notFoundCode?: ErrorCode;
  /** Fields masked in the audit log. */
  secretFields?: readonly string[];
  /** Refuses a create before anything is written (throws an AppError): the licence's counts. */
  beforeCreate?(write: WriteContext): Promise<void>;
  /** Turns the parsed input into column values; the generic layer adds ids, times and tenant. */
  toValues?(input: Values, write: WriteContext, before?: Row): Promise<Values> | Values;
  /**
   * Runs after the row is written, inside the transaction (e.g. a user's roles). `written`: the
   * columns written (toValues' answer, with ids, times and tenant on a create) and, on an update,
   * the row as it was before. It writes other tables only: an update answers (and audits) the row
   * its own statement returned.
   */
  afterWrite?(id: number, input: Values, write: WriteContext, written: { values: Values; before?: Row }): Promise<void>;
  /** Refuses a removal (throws an AppError); all rows are checked before any is removed. */
  beforeDelete?(rows: Row[], write: WriteContext): Promise<void>;
  /**
   * What a removal answers (409) when the database still finds a row referring to one being
   * removed: a row written by a concurrent request after `beforeDelete` looked. Default `record_in_use`.
   */
  inUseCode?: ErrorCode;
  /** The columns a list reads, when some are too heavy to read for every row (a plan's document); default all. */
  listColumns?: readonly string[];
  /**
   * Shapes stored rows for the client; loads related rows in one go (`app` for the keys that open
   * stored secrets, the public URL). The rows are fresh from the database and the caller's own: a
   * presenter may complete them in place rather than copy them.
   */
  present?(rows: Row[], db: Kysely<Database>, app: ResourceHost): Promise<Out[]> | Out[];
  /** The other tables `present` reads: a write to one of them drops cached answers (db/read-cache.ts). */
  readTables?: readonly TableName[];
  /**
   * Seconds an answer `present` made stays good, when it holds something that expires (a signed
   * link): a cached answer is not served past half of it, so a link served is good for at least half.
   */
  presentedFor?: number;
  /** The tenant an audit entry belongs to, for resources that are not tenant-owned. */
  auditTenant?(row: Row): number | null;
  /** Columns with created_time/updated_time. */
  timestamps?: { created: boolean; updated: boolean };
}

/**
 * What a tenant's own records share: members of the tenant read and write them (guests read),
 * and their rows carry an id, the tenant and the times of creation and change.
 */
export const memberKeptTenantRecords = { tenantOwned: true, read: 'member', write: 'member' } as const;
export const tenantRecordFields = { id: 'integer', tenant_id: 'integer', created_time: 'date', updated_time: 'date' } as const satisfies FieldMap;

export function defineResource<Out>(definition: ResourceDefinition<Out>): ResourceDefinition<Out> {
  return definition;
}
