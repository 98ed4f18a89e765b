import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, WebhookDeliveryTable } from '../../db/schema.ts';

export type DeliveryRow = Selectable<WebhookDeliveryTable>;

export async function insertDelivery(db: Kysely<Database>, values: Insertable<WebhookDeliveryTable>): Promise<DeliveryRow> {
  return db.insertInto('webhook_deliveries').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findDelivery(db: Kysely<Database>, id: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Held by no instance, or by one whose lease ran out (it stopped or died mid-attempt). */
const isLeaseFree = (now: string) => (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]);

/** Ids of deliveries that may be claimed now, oldest due first. */
export async function findClaimableIds(db: Kysely<Database>, now: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_time', '<=', now)
    .where(isLeaseFree(now))
    .orderBy('next_attempt_time')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes one delivery for one attempt: a single conditional UPDATE, so of several instances racing
 * for the same row exactly one gets it back. SQLite runs writes one at a time; PostgreSQL makes
 * the second UPDATE wait for the first's row lock and then re-checks the WHERE against the row
 * the first one wrote, whose lease is now in the future. The same statement is correct on both.
 * The attempt is counted here, before anything is sent, so an instance that dies mid-request
 * still used one attempt.
 */
export async function claimDelivery(db: Kysely<Database>, id: number, now: string, leaseUntil: string): Promise<DeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ lease_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_time', '<=', now)
    .where(isLeaseFree(now))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Records the outcome of the attempt numbered `attempts`. If the lease ran out meanwhile and
 * another instance claimed the row again, the count moved on and this writes nothing: the newer
 * attempt owns the row. Answers whether the outcome was written.
 */
export async function finishAttempt(
  db: Kysely<Database>,
  id: number,
  attempts: number,
  values: Pick<Updateable<WebhookDeliveryTable>, 'status' | 'next_attempt_time' | 'last_error' | 'last_status' | 'delivered_time'>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...values, lease_until: null })
    .where('id', '=', id)
    .where('attempts', '=', attempts)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Makes a delivery due now, unless an instance is sending it (its lease runs past `now`). */
export async function requeueDelivery(db: Kysely<Database>, id: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_time: now })
    .where('id', '=', id)
    .where(isLeaseFree(now))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function findSecret(db: Kysely<Database>, tenantId: number) {
  return db.selectFrom('webhook_secrets').select(['secret', 'created_time']).where('tenant_id', '=', tenantId).executeTakeFirst();
}

/** Stores a first secret; when another instance stored one first, that one stays. */
export async function insertSecretIfMissing(db: Kysely<Database>, tenantId: number, secret: string, now: string): Promise<void> {
  await db
    .insertInto('webhook_secrets')
    .values({ tenant_id: tenantId, secret, created_time: now })
    .onConflict((oc) => oc.column('tenant_id').doNothing())
    .execute();
}

export async function replaceSecret(db: Kysely<Database>, tenantId: number, secret: string, now: string): Promise<void> {
  await db
    .insertInto('webhook_secrets')
    .values({ tenant_id: tenantId, secret, created_time: now })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ secret, created_time: now }))
    .execute();
}
