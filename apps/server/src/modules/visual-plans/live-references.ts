import type { PlanReference } from '@voxplan/blocks/definitions';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { type PlanRow, readStoredDocument, storedReferences } from './plan-document.ts';
import { writePlanReferences } from './plan-references.ts';

/**
 * What the versions calls and chats may run refer to: the published version and, while a rollout
 * runs, its new version too. Both are protected from removal as long as a session may meet them.
 */
export async function liveVersionReferences(db: Kysely<Database>, row: Pick<PlanRow, 'id' | 'published_version' | 'rollout_version'>): Promise<PlanReference[]> {
  const versions = [row.published_version, row.rollout_version].filter((version): version is number => version !== null);
  if (versions.length === 0) return [];
  const rows = await db.selectFrom('visual_plan_versions').select('document').where('plan_id', '=', row.id).where('version', 'in', versions).execute();
  return rows.flatMap((version) => storedReferences(readStoredDocument(version.document)));
}

/** Records what the plan refers to now: its draft and its live versions (after a rollout started or ended). */
export async function rewritePlanReferences(db: Kysely<Database>, row: PlanRow): Promise<void> {
  const draft = storedReferences(readStoredDocument(row.document, row.id));
  await writePlanReferences(db, row.tenant_id, row.id, [...draft, ...(await liveVersionReferences(db, row))]);
}
