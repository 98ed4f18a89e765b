/**
 * Plan documents as the server stores them: JSON text of {format_version, settings, nodes, edges}
 * in visual_plans.document (the draft) and visual_plan_versions.document (each published version).
 * Migrated to the current format when read; validated (blocks' validatePlanDocument) when written.
 */
import type { ErrorDetail } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanVersion } from '@voxplan/contracts/visual-plan';
import {
  migratePlanDocument,
  type PlanContent,
  planFormatVersion,
  type PlanIssue,
  type PlanReference,
  planReferences,
  readPlanDocument,
  type ValidatedDocument,
  validatePlanDocument,
} from '@voxplan/blocks/definitions';
import type { Kysely, Selectable } from 'kysely';
import type { Database, VisualPlanTable, VisualPlanVersionTable } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';

export type PlanRow = Selectable<VisualPlanTable>;
export type PlanVersionRow = Selectable<VisualPlanVersionTable>;

/** The columns of a plan but its document: what lists read. */
export const planSummaryColumns = ['id', 'tenant_id', 'created_time', 'updated_time', 'name', 'description', 'version', 'published_version', 'updated_by'] as const;

/** A plan's own columns, as audit entries hold them. */
export type PlanSummary = Omit<VisualPlan, 'updated_by_name'>;

export function presentPlan(row: Record<string, unknown>): PlanSummary {
  return Object.fromEntries(planSummaryColumns.map((column) => [column, row[column]])) as PlanSummary;
}

/**
 * Plans as the API answers them: with the name of who saved each last, read for all the rows at
 * once, since members and guests may not list users to find it themselves.
 */
export async function presentPlans(rows: readonly Record<string, unknown>[], db: Kysely<Database>): Promise<VisualPlan[]> {
  const ids = [...new Set(rows.map((row) => row.updated_by).filter((id): id is number => typeof id === 'number'))];
  const users = ids.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids).execute();
  const names = new Map(users.map((user) => [user.id, user.name]));
  return rows.map((row) => {
    const plan = presentPlan(row);
    return { ...plan, updated_by_name: plan.updated_by === null ? null : (names.get(plan.updated_by) ?? null) };
  });
}

/** The columns of a published version but its document. */
export const versionSummaryColumns = ['id', 'tenant_id', 'plan_id', 'version', 'name', 'published_time', 'published_by'] as const;

export function presentVersion(row: Omit<PlanVersionRow, 'document'>): VisualPlanVersion {
  return Object.fromEntries(versionSummaryColumns.map((column) => [column, row[column]])) as VisualPlanVersion;
}

/** What is stored: the document without what the plan's own columns hold (id, name, version…). */
export function contentOf(document: ValidatedDocument): PlanContent {
  return { format_version: document.format_version, settings: document.settings, nodes: document.nodes, edges: document.edges };
}

/** A new plan: one start block, the default settings. */
export function newPlanContent(): PlanContent {
  return contentOf(readPlanDocument({ format_version: planFormatVersion, nodes: [{ id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} }], edges: [] }));
}

/** Issues as error details: the node or edge they are about, and the path inside it. */
export function issueDetails(issues: readonly PlanIssue[]): ErrorDetail[] {
  return issues.map(({ code, message, node_id, edge_id, path }) => ({
    path,
    message,
    code,
    ...(node_id !== undefined && { node_id }),
    ...(edge_id !== undefined && { edge_id }),
  }));
}

export const invalidPlan = (issues: readonly PlanIssue[]) => badRequest('invalid_plan', issueDetails(issues));

/**
 * A document sent by a client, in any format this server knows, validated; 400 invalid_plan
 * with every problem otherwise. `planId`: the plan's own id, which its call_plan blocks may not name.
 */
export function validDocument(raw: unknown, planId?: number): { document: ValidatedDocument; warnings: PlanIssue[] } {
  const result = validatePlanDocument(raw, planId === undefined ? {} : { planId });
  if (!result.ok) throw invalidPlan(result.errors);
  return { document: result.document, warnings: result.warnings };
}

export interface StoredDocument {
  /** Migrated to the current format; validated unless `errors` says otherwise. */
  content: PlanContent;
  /** Empty unless the stored document fails today's validation (a block's rules grew stricter). */
  errors: PlanIssue[];
  warnings: PlanIssue[];
  /** Validated, when it is valid. */
  document?: ValidatedDocument;
}

/** Reads a stored document: migrated, validated, linted; an invalid one comes back as stored, with its errors. */
export function readStoredDocument(text: string, planId?: number): StoredDocument {
  const raw: unknown = JSON.parse(text);
  const result = validatePlanDocument(raw, planId === undefined ? {} : { planId });
  if (result.ok) return { content: contentOf(result.document), document: result.document, errors: [], warnings: result.warnings };
  let migrated: PlanContent;
  try {
    migrated = migratePlanDocument(raw) as PlanContent;
  } catch {
    migrated = raw as PlanContent;
  }
  return { content: migrated, errors: result.errors, warnings: [] };
}

/** What a stored document refers to; one that no longer validates still refers to what its blocks name. */
export function storedReferences(stored: StoredDocument): PlanReference[] {
  if (stored.document) return planReferences(stored.document);
  const nodes = Array.isArray(stored.content.nodes) ? stored.content.nodes : [];
  const readable = nodes.filter((node) => typeof node === 'object' && node !== null && typeof node.type === 'string' && typeof node.id === 'string');
  return planReferences({ ...stored.content, nodes: readable } as ValidatedDocument);
}
