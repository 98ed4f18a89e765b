import { callPlanCycles, type PlanIssue, planReferences, type PlanReference, settingsOff, templateWarnings, type ValidatedDocument } from '@voxplan/blocks/definitions';
import { isFeatureOn } from '@voxplan/contracts';
import {
  type VisualPlan,
  type VisualPlanDocument,
  type VisualPlanDraft,
  type VisualPlanDraftDocument,
  visualPlanDraftHistory,
  type VisualPlanExport,
  type VisualPlanPublished,
  type VisualPlanVersion,
  type VisualPlanVersionDocument,
} from '@voxplan/contracts/visual-plan';
import type { Kysely } from 'kysely';
import type { AppContext, Scope } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { conflict, notFound } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import type { Values } from '../../resources/definition.ts';
import { assertStorable, type ResourceService } from '../../resources/service.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { readFeatures } from '../configurations/settings.ts';
import {
  contentOf,
  invalidPlan,
  type PlanRow,
  type PlanVersionRow,
  presentPlan,
  presentPlans,
  presentVersion,
  readStoredDocument,
  storedReferences,
  validDocument,
  versionSummaryColumns,
} from './plan-document.ts';
import { missingReferences, planCalls, writePlanReferences } from './plan-references.ts';
import { syncedTemplatesFor } from './plan-templates.ts';

const outOfSync = (current: number) => conflict('plan_out_of_sync', [{ path: 'base_version', message: `the plan is at version ${current}` }]);

/** A plan's new content, as save as and import send it. */
export interface PlanContentInput {
  name: string;
  description: string;
  [field: string]: unknown;
}

const COPY_CANDIDATES = 20;

/** "Main (copy)", "Main (copy 2)", …: names a duplicate may take, each within the name's 100 characters. */
export function copyNames(name: string, max = 100): string[] {
  return Array.from({ length: COPY_CANDIDATES }, (_, index) => {
    const suffix = index === 0 ? ' (copy)' : ` (copy ${index + 1})`;
    return `${name.slice(0, max - suffix.length).trimEnd()}${suffix}`;
  });
}

/**
 * The plan calls besides the generic ones: the draft document with its version, publishing, the
 * published versions, and plans made from content. Reads and writes go through the resource's
 * service, so scope, roles and constraint errors are the generic layer's.
 */
export class VisualPlanService {
  constructor(
    private readonly ctx: AppContext,
    private readonly plans: ResourceService<VisualPlan>,
  ) {}

  private async findPlan(db: Kysely<Database>, scope: Scope, id: number): Promise<PlanRow> {
    return (await this.plans.findRow(db, scope, id)) as unknown as PlanRow;
  }

  private async findVersion(db: Kysely<Database>, planId: number, version: number): Promise<PlanVersionRow> {
    const row = await db.selectFrom('visual_plan_versions').selectAll().where('plan_id', '=', planId).where('version', '=', version).executeTakeFirst();
    if (!row) throw notFound();
    return row;
  }

  /**
   * Lint warnings, the call_plan blocks that come back to this plan through the tenant's other
   * plans, the blocks that name a choice whose feature setting is off, and the WhatsApp templates
   * not synced or not approved, or with a parameter unmapped.
   */
  private async warningsOf(db: Kysely<Database>, row: PlanRow, document: ValidatedDocument, lint: PlanIssue[]): Promise<PlanIssue[]> {
    const [calls, features, templates] = await Promise.all([planCalls(db, row.tenant_id, row.id), readFeatures(db), syncedTemplatesFor(db, row.tenant_id, document)]);
    return [
      ...lint,
      ...callPlanCycles(document, row.id, calls),
      ...settingsOff(document, (setting) => isFeatureOn(features, setting)),
      ...(templates ? templateWarnings(document.nodes, templates) : []),
    ];
  }

  private async draftOf(db: Kysely<Database>, row: PlanRow): Promise<VisualPlanDocument> {
    const stored = readStoredDocument(row.document, row.id);
    const warnings = stored.document ? await this.warningsOf(db, row, stored.document, stored.warnings) : [];
    const [plan] = await presentPlans([row], db);
    return { ...plan!, ...stored.content, warnings, errors: stored.errors };
  }

  /** What the newest published version refers to: protected as long as calls may run it. */
  private async publishedReferences(db: Kysely<Database>, row: PlanRow): Promise<PlanReference[]> {
    if (row.published_version === null) return [];
    const published = await this.findVersion(db, row.id, row.published_version);
    return storedReferences(readStoredDocument(published.document));
  }

  /** After an update that matched no row: the plan is gone (404) or another save came first. */
  private async whyNotUpdated(db: Kysely<Database>, id: number): Promise<never> {
    const current = await db.selectFrom('visual_plans').select('version').where('id', '=', id).executeTakeFirst();
    if (!current) throw notFound();
    throw outOfSync(current.version);
  }

  async document(scope: Scope, id: number): Promise<VisualPlanDocument> {
    this.plans.assertReadable(scope);
    return this.draftOf(this.ctx.db, await this.findPlan(this.ctx.db, scope, id));
  }

  async save(scope: Scope, id: number, body: { base_version: number; [field: string]: unknown }): Promise<VisualPlanDocument> {
    this.plans.assertWritable(scope);
    const { base_version: base, ...raw } = body;
    return this.writeDraft(scope, id, base, validDocument(raw, id).document);
  }

  async restore(scope: Scope, id: number, version: number, base: number): Promise<VisualPlanDocument> {
    this.plans.assertWritable(scope);
    await this.findPlan(this.ctx.db, scope, id);
    const published = await this.findVersion(this.ctx.db, id, version);
    // Validated as if sent now: what it refers to may have been removed since it was published.
    return this.writeDraft(scope, id, base, validDocument(JSON.parse(published.document), id).document, { restored_version: version });
  }

  /**
   * Makes `document` the draft, over version `base`. The version is checked by the update itself
   * (`where version = base`), so of two saves over the same version exactly one matches a row.
   */
  private async writeDraft(scope: Scope, id: number, base: number, document: ValidatedDocument, note: Values = {}): Promise<VisualPlanDocument> {
    const content = contentOf(document);
    assertStorable(content);
    return this.plans.inTransaction(scope, async (write) => {
      const before = await this.findPlan(write.trx, scope, id);
      if (before.version !== base) throw outOfSync(before.version);
      // A save that changes nothing makes no version: the history lists changes, not key presses.
      if (JSON.stringify(content) === before.document) return this.draftOf(write.trx, before);
      const missing = await missingReferences(write, before.tenant_id, document);
      if (missing.length > 0) throw invalidPlan(missing);
      const updated = await write.trx
        .updateTable('visual_plans')
        .set({ document: JSON.stringify(content), version: base + 1, updated_time: nowIso(), updated_by: scope.actor.userId })
        .where('id', '=', id)
        .where('version', '=', base)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) await this.whyNotUpdated(write.trx, id);
      const after = await write.trx.selectFrom('visual_plans').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      await keepDraft(write.trx, after);
      await writePlanReferences(write.trx, after.tenant_id, id, [...planReferences(document), ...(await this.publishedReferences(write.trx, after))]);
      await recordAudit(write.trx, scope, [
        { action: 'update', entity: 'visual_plan', entityId: id, tenantId: after.tenant_id, before: presentPlan(before), after: { ...presentPlan(after), ...note } },
      ]);
      return this.draftOf(write.trx, after);
    });
  }

  /** Publishes the draft of version `base`; publishing it again writes nothing and answers the same version. */
  async publish(scope: Scope, id: number, base: number): Promise<VisualPlanPublished> {
    this.plans.assertWritable(scope);
    return this.plans.inTransaction(scope, async (write) => {
      const before = await this.findPlan(write.trx, scope, id);
      if (before.version !== base) throw outOfSync(before.version);
      const stored = readStoredDocument(before.document, id);
      if (!stored.document) throw invalidPlan(stored.errors);
      const missing = await missingReferences(write, before.tenant_id, stored.document);
      if (missing.length > 0) throw invalidPlan(missing);
      const warnings = await this.warningsOf(write.trx, before, stored.document, stored.warnings);
      if (before.published_version === before.version) return { ...presentVersion(await this.findVersion(write.trx, id, base)), warnings };

      const updated = await write.trx.updateTable('visual_plans').set({ published_version: base }).where('id', '=', id).where('version', '=', base).executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) await this.whyNotUpdated(write.trx, id);
      const version = await write.trx
        .insertInto('visual_plan_versions')
        .values({
          tenant_id: before.tenant_id,
          plan_id: id,
          version: base,
          name: before.name,
          document: JSON.stringify(stored.content),
          published_time: nowIso(),
          published_by: scope.actor.userId,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const after = await write.trx.selectFrom('visual_plans').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      // Draft and published version are now the same document.
      await writePlanReferences(write.trx, before.tenant_id, id, planReferences(stored.document));
      await recordAudit(write.trx, scope, [
        { action: 'create', entity: 'visual_plan_version', entityId: version.id, tenantId: version.tenant_id, before: null, after: presentVersion(version) },
        { action: 'update', entity: 'visual_plan', entityId: id, tenantId: after.tenant_id, before: presentPlan(before), after: presentPlan(after) },
      ]);
      return { ...presentVersion(version), warnings };
    });
  }

  async versions(scope: Scope, id: number): Promise<VisualPlanVersion[]> {
    this.plans.assertReadable(scope);
    await this.findPlan(this.ctx.db, scope, id);
    const rows = await this.ctx.db
      .selectFrom('visual_plan_versions')
      .select(versionSummaryColumns)
      .where('plan_id', '=', id)
      .orderBy('version', 'desc')
      .execute();
    return rows.map(presentVersion);
  }

  /** The drafts saves left, newest first (the last `visualPlanDraftHistory`). */
  async drafts(scope: Scope, id: number): Promise<VisualPlanDraft[]> {
    this.plans.assertReadable(scope);
    await this.findPlan(this.ctx.db, scope, id);
    // Named here, as plans name who saved them: members and guests may not list users.
    return this.ctx.db
      .selectFrom('visual_plan_drafts')
      .leftJoin('users', 'users.id', 'visual_plan_drafts.saved_by')
      .select(['visual_plan_drafts.plan_id', 'visual_plan_drafts.version', 'visual_plan_drafts.saved_time', 'visual_plan_drafts.saved_by', 'users.name as saved_by_name'])
      .where('visual_plan_drafts.plan_id', '=', id)
      .orderBy('visual_plan_drafts.version', 'desc')
      .execute();
  }

  async draft(scope: Scope, id: number, version: number): Promise<VisualPlanDraftDocument> {
    this.plans.assertReadable(scope);
    await this.findPlan(this.ctx.db, scope, id);
    const row = await this.findDraft(this.ctx.db, id, version);
    const user = row.saved_by === null ? undefined : await this.ctx.db.selectFrom('users').select('name').where('id', '=', row.saved_by).executeTakeFirst();
    return { plan_id: row.plan_id, version: row.version, saved_time: row.saved_time, saved_by: row.saved_by, saved_by_name: user?.name ?? null, ...readStoredDocument(row.document).content };
  }

  /** Makes a saved draft the draft again, as restoring a published version does. */
  async restoreDraft(scope: Scope, id: number, version: number, base: number): Promise<VisualPlanDocument> {
    this.plans.assertWritable(scope);
    await this.findPlan(this.ctx.db, scope, id);
    const saved = await this.findDraft(this.ctx.db, id, version);
    return this.writeDraft(scope, id, base, validDocument(JSON.parse(saved.document), id).document, { restored_draft: version });
  }

  private async findDraft(db: Kysely<Database>, planId: number, version: number) {
    const row = await db.selectFrom('visual_plan_drafts').selectAll().where('plan_id', '=', planId).where('version', '=', version).executeTakeFirst();
    if (!row) throw notFound();
    return row;
  }

  async version(scope: Scope, id: number, version: number): Promise<VisualPlanVersionDocument> {
    this.plans.assertReadable(scope);
    await this.findPlan(this.ctx.db, scope, id);
    const row = await this.findVersion(this.ctx.db, id, version);
    return { ...presentVersion(row), ...readStoredDocument(row.document).content };
  }

  /** The file import reads: the draft, or a published version, with the name and format. */
  async exportPlan(scope: Scope, id: number, version?: number): Promise<VisualPlanExport> {
    this.plans.assertReadable(scope);
    const plan = await this.findPlan(this.ctx.db, scope, id);
    const source = version === undefined ? plan : await this.findVersion(this.ctx.db, id, version);
    const { format_version, ...content } = readStoredDocument(source.document).content;
    return { format_version, name: source.name, description: plan.description, ...content };
  }

  /**
   * A new plan in `tenantId` holding `document`, through the generic create (roles, audit, name
   * uniqueness); the resource checks the references in that tenant and records them.
   */
  private async createFrom(scope: Scope, tenantId: number | null, input: { name: string; description: string }, document: ValidatedDocument): Promise<VisualPlanDocument> {
    const created = await this.plans.create({ ...scope, tenantId }, { name: input.name, description: input.description, document: contentOf(document) });
    return this.document(scope, created.id);
  }

  /** Save under another name: the editor's content as a new plan beside plan `id` (whose draft is left alone). */
  async saveAs(scope: Scope, id: number, body: PlanContentInput): Promise<VisualPlanDocument> {
    this.plans.assertWritable(scope);
    const source = await this.findPlan(this.ctx.db, scope, id);
    const { name, description, ...raw } = body;
    return this.createFrom(scope, source.tenant_id, { name, description }, validDocument(raw).document);
  }

  async duplicate(scope: Scope, id: number, name: string | undefined): Promise<VisualPlanDocument> {
    this.plans.assertWritable(scope);
    const source = await this.findPlan(this.ctx.db, scope, id);
    const stored = readStoredDocument(source.document, id);
    if (!stored.document) throw invalidPlan(stored.errors);
    return this.createFrom(scope, source.tenant_id, { name: name ?? (await this.freeCopyName(source)), description: source.description }, stored.document);
  }

  /** A plan from an exported file (any older format migrated) in the caller's tenant. */
  async importPlan(scope: Scope, body: PlanContentInput): Promise<VisualPlanDocument> {
    this.plans.assertWritable(scope);
    const { name, description, ...raw } = body;
    return this.createFrom(scope, scope.tenantId, { name, description }, validDocument(raw).document);
  }

  private async freeCopyName(source: PlanRow): Promise<string> {
    const candidates = copyNames(source.name);
    const taken = await this.ctx.db.selectFrom('visual_plans').select('name').where('tenant_id', '=', source.tenant_id).where('name', 'in', candidates).execute();
    const names = new Set(taken.map((row) => row.name));
    // With every candidate taken, the first one is refused as a duplicate name.
    return candidates.find((candidate) => !names.has(candidate)) ?? candidates[0]!;
  }
}

/** Keeps the draft a save just wrote among the plan's saved drafts, and forgets the oldest beyond the history's length. */
async function keepDraft(db: Kysely<Database>, plan: PlanRow): Promise<void> {
  await db
    .insertInto('visual_plan_drafts')
    .values({ tenant_id: plan.tenant_id, plan_id: plan.id, version: plan.version, document: plan.document, saved_time: plan.updated_time, saved_by: plan.updated_by })
    .execute();
  await db.deleteFrom('visual_plan_drafts').where('plan_id', '=', plan.id).where('version', '<=', plan.version - visualPlanDraftHistory).execute();
}
