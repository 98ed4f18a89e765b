import type { AuditAction } from '@voxplan/contracts';
import type { Insertable, Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.ts';
import type { Database } from '../db/schema.ts';
import { nowIso } from '../lib/time.ts';

export interface AuditChange {
  action: AuditAction;
  entity: string;
  entityId: string | number | null;
  tenantId: number | null;
  before: unknown;
  after: unknown;
}

const MASK = '••••';

/** Removes secrets from a snapshot before it is written to the audit log. */
export function maskFields(snapshot: unknown, secretFields: readonly string[]): unknown {
  if (snapshot === null || typeof snapshot !== 'object' || secretFields.length === 0) return snapshot;
  const copy: Record<string, unknown> = { ...(snapshot as Record<string, unknown>) };
  for (const field of secretFields) {
    if (copy[field] !== undefined && copy[field] !== null) copy[field] = MASK;
  }
  return copy;
}

/**
 * Who made a change: a request's scope, or a command run on the server (no user, no address).
 * A request's `Scope` fits as it is.
 */
export interface AuditAuthor {
  actor: { userId: number | null; username: string | null };
  sourceIp: string | null;
}

type AuditRow = Omit<Insertable<Database['audit_log']>, 'id'>;

// Nearly every write records one change: that insert is compiled once (db/prepared.ts).
const insertOne = prepareQuery((db, row: AuditRow) => db.insertInto('audit_log').values(row));

/** Written inside the same transaction as the change, so a change is never left unaudited. */
export async function recordAudit(trx: Kysely<Database>, scope: AuditAuthor, changes: AuditChange[]): Promise<void> {
  if (changes.length === 0) return;
  const created_time = nowIso();
  const rows = changes.map(
    (change): AuditRow => ({
      created_time,
      user_id: scope.actor.userId,
      username: scope.actor.username,
      tenant_id: change.tenantId,
      action: change.action,
      entity: change.entity,
      entity_id: change.entityId === null ? null : String(change.entityId),
      before: change.before === null || change.before === undefined ? null : JSON.stringify(change.before),
      after: change.after === null || change.after === undefined ? null : JSON.stringify(change.after),
      source_ip: scope.sourceIp,
    }),
  );
  if (rows.length === 1) await insertOne(trx, rows[0]!);
  else await trx.insertInto('audit_log').values(rows).execute();
}
