/**
 * What plans refer to (destinations, audios, date ranges, other plans): checked to exist in the
 * plan's tenant when a plan is saved or published, kept in plan_references, and asked before any
 * of those records is removed.
 *
 * On PostgreSQL two requests can cross: a plan saved with a reference to destination 5 while
 * destination 5 is removed. A save takes the rows it refers to FOR KEY SHARE, a removal takes
 * the rows it removes FOR UPDATE before it asks plan_references; the two locks exclude each other,
 * so either the save sees the row gone (reference_not_found) or the removal waits for the save and
 * then sees its references (…_in_use). SQLite runs one transaction at a time.
 */
import type { ErrorCode } from '@voxplan/contracts';
import { type PlanIssue, type PlanReference, planReferences, type ReferenceKind, type ValidatedDocument } from '@voxplan/blocks/definitions';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { conflict } from '../../errors.ts';
import type { Row, WriteContext } from '../../resources/definition.ts';

type ReferencedTable = 'destinations' | 'date_ranges' | 'visual_plans' | 'audios';

/** The table each kind of reference names a row of. */
const referenceTables: Record<ReferenceKind, ReferencedTable> = {
  destination: 'destinations',
  date_range: 'date_ranges',
  plan: 'visual_plans',
  audio: 'audios',
};

const kindNames: Record<ReferenceKind, string> = { destination: 'destination', date_range: 'date range', plan: 'plan', audio: 'audio' };

// Every referenced table has id and tenant_id; Kysely types a query per table, so one is named for all.
const idsOf = (trx: Kysely<Database>, table: ReferencedTable, ids: readonly number[]) =>
  trx
    .selectFrom(table as 'destinations')
    .select('id')
    .where('id', 'in', [...ids]);

/**
 * Issues (`reference_not_found`, with the node and field) for every reference the tenant does not
 * have. A record of another tenant is not found either: nothing tells it exists.
 */
export async function missingReferences(write: WriteContext, tenantId: number, document: ValidatedDocument): Promise<PlanIssue[]> {
  const references = planReferences(document);
  const found = new Map<ReferenceKind, Set<number>>();
  for (const kind of new Set(references.map((reference) => reference.kind))) {
    const table = referenceTables[kind];
    const ids = [...new Set(references.filter((reference) => reference.kind === kind).map((reference) => reference.id))];
    let query = idsOf(write.trx, table, ids).where('tenant_id', '=', tenantId);
    if (write.app.dialect === 'postgres') query = query.forKeyShare();
    found.set(kind, new Set((await query.execute()).map((row) => row.id)));
  }
  return references
    .filter((reference) => !found.get(reference.kind)!.has(reference.id))
    .map((reference) => ({
      code: 'reference_not_found',
      message: `there is no ${kindNames[reference.kind]} ${reference.id} in this tenant`,
      node_id: reference.node_id,
      path: reference.path,
    }));
}

/** Replaces what a plan refers to: the union of its draft's and its newest published version's references. */
export async function writePlanReferences(trx: Kysely<Database>, tenantId: number, planId: number, references: readonly PlanReference[]): Promise<void> {
  await trx.deleteFrom('plan_references').where('plan_id', '=', planId).execute();
  const unique = new Map(references.map((reference) => [`${reference.kind}:${reference.id}`, reference]));
  if (unique.size === 0) return;
  await trx
    .insertInto('plan_references')
    .values([...unique.values()].map((reference) => ({ tenant_id: tenantId, plan_id: planId, kind: reference.kind, ref_id: reference.id })))
    .execute();
}

/**
 * Refuses (409 `code`) the removal of records a plan refers to, naming the plans in the details
 * (`path` is the id of the record in use; `plan_id` and `plan_name` the plan using it, so that a
 * client words it in its own language). Plans removed together may refer to each other.
 * Called from a resource's beforeDelete, in the removal's transaction.
 */
export async function assertNotReferenced(write: WriteContext, kind: ReferenceKind, rows: readonly Row[], code: ErrorCode): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((row) => row.id);
  const table = referenceTables[kind];
  // Taken first, so that a save holding these rows is waited for and its references seen below.
  if (write.app.dialect === 'postgres') await idsOf(write.trx, table, ids).forUpdate().execute();
  let query = write.trx
    .selectFrom('plan_references as r')
    .innerJoin('visual_plans as p', 'p.id', 'r.plan_id')
    .select(['r.ref_id', 'p.id as plan_id', 'p.name'])
    .where('r.tenant_id', 'in', [...new Set(rows.map((row) => row.tenant_id as number))])
    .where('r.kind', '=', kind)
    .where('r.ref_id', 'in', ids);
  if (kind === 'plan') query = query.where('r.plan_id', 'not in', ids);
  const users = await query.orderBy('r.ref_id').orderBy('p.id').execute();
  if (users.length === 0) return;
  throw conflict(
    code,
    users.map((user) => ({
      path: String(user.ref_id),
      message: `${kindNames[kind]} ${user.ref_id} is used by the plan "${user.name}" (${user.plan_id})`,
      plan_id: user.plan_id,
      plan_name: user.name,
    })),
  );
}

/** Which plans each plan of the tenant calls (draft or newest published version), but for `exceptPlanId`. */
export async function planCalls(db: Kysely<Database>, tenantId: number, exceptPlanId: number): Promise<Map<number, number[]>> {
  const rows = await db
    .selectFrom('plan_references')
    .select(['plan_id', 'ref_id'])
    .where('tenant_id', '=', tenantId)
    .where('kind', '=', 'plan')
    .where('plan_id', '<>', exceptPlanId)
    .execute();
  const calls = new Map<number, number[]>();
  for (const row of rows) calls.set(row.plan_id, [...(calls.get(row.plan_id) ?? []), row.ref_id]);
  return calls;
}
