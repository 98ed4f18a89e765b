import { maxId } from '@voxplan/contracts';
import { PlanValidationError } from '@voxplan/blocks/definitions';
import { compilePlan } from '@voxplan/blocks/runtime';
import type { CompiledPlan, MaybePromise, PlanLoader } from '@voxplan/engine';
import type { Kysely } from 'kysely';
import type { ReadCache } from '../../db/read-cache.ts';
import type { Database } from '../../db/schema.ts';
import { contactKeyOf, meetsCandidate } from '../../lib/rollout-choice.ts';

const PLAN_TABLES = ['visual_plans'] as const;

export interface PlanVersions {
  version: number;
  published_version: number | null;
  /** The running rollout's new version, share and pinned contacts (JSON), all null when none runs. */
  rollout_version: number | null;
  rollout_share: number | null;
  rollout_pinned: string | null;
}

/**
 * A plan's draft and published versions, and its running rollout, asked on every turn and every
 * simulator start: from the read cache, which answers again until `visual_plans` is written, by
 * this instance or another (a rollout started, changed or ended writes that row too).
 */
export function readPlanVersions(db: Kysely<Database>, readCache: ReadCache, tenantId: number, planId: number): Promise<PlanVersions | undefined> {
  return readCache.read(planVersionsKey(tenantId, planId), PLAN_TABLES, () => selectPlanVersions(db, tenantId, planId));
}

/** The same, without a promise when the read cache may answer at once (ReadCache.readMaybeNow). */
function readPlanVersionsNow(db: Kysely<Database>, readCache: ReadCache, tenantId: number, planId: number): MaybePromise<PlanVersions | undefined> {
  return readCache.readMaybeNow(planVersionsKey(tenantId, planId), PLAN_TABLES, () => selectPlanVersions(db, tenantId, planId));
}

const planVersionsKey = (tenantId: number, planId: number) => `plan-versions\u0000${tenantId}\u0000${planId}`;
const selectPlanVersions = (db: Kysely<Database>, tenantId: number, planId: number) =>
  db
    .selectFrom('visual_plans')
    .select(['version', 'published_version', 'rollout_version', 'rollout_share', 'rollout_pinned'])
    .where('id', '=', planId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();

/** The pinned contacts of a row the read cache keeps, parsed once per row rather than once per session start. */
const pinnedOfRow = new WeakMap<PlanVersions, readonly string[]>();
function pinnedOf(row: PlanVersions): readonly string[] {
  let pinned = pinnedOfRow.get(row);
  if (!pinned) {
    pinned = row.rollout_pinned === null ? [] : (JSON.parse(row.rollout_pinned) as string[]);
    pinnedOfRow.set(row, pinned);
  }
  return pinned;
}

/** The version a new session with `contactKey` runs: the rollout's when the choice says so, else the published one. */
export function chosenVersion(planId: number, row: PlanVersions, contactKey: string | undefined): number | null {
  if (row.rollout_version === null || row.rollout_share === null || contactKey === undefined || contactKey === '') return row.published_version;
  const pinned = pinnedOf(row);
  return meetsCandidate(planId, contactKeyOf(contactKey), { candidate_version: row.rollout_version, share: row.rollout_share, pinned })
    ? row.rollout_version
    : row.published_version;
}

/** Compiled versions kept per server; the oldest goes first past this many. */
const CACHE_SIZE = 200;

const isRowId = (...ids: number[]) => ids.every((id) => Number.isInteger(id) && id > 0 && id <= maxId);

export interface PlanLoaders {
  /** Published versions only: what calls and chats run, and what `call_plan` enters. */
  published: PlanLoader;
  /** The same, except that `planId` runs its draft (the simulator's test sessions). */
  withDraft(planId: number): PlanLoader;
  /** The draft's current version, the one a test session pins when it starts; undefined when the tenant has no such plan. */
  draftVersion(tenantId: number, planId: number): Promise<number | undefined>;
}

/**
 * The engine's PlanLoader over `visual_plan_versions` (published) and `visual_plans` (drafts).
 *
 * A version is compiled once and kept: a published version never changes, and a draft's version
 * grows on every save, so (plan, version) names one document either way. A draft is still looked
 * up on each load, so that a session pinned to a draft saved since fails alike on every instance
 * (`plan_not_found`) instead of running on where the old version happens to be cached.
 */
export function createPlanLoaders(db: Kysely<Database>, readCache: ReadCache, log: (message: string) => void = () => {}): PlanLoaders {
  const cache = new Map<string, CompiledPlan>();

  function remember(key: string, plan: CompiledPlan): CompiledPlan {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, plan);
    return plan;
  }

  /** A stored document that no longer validates is treated as missing: the session fails with plan_not_found. */
  function compileStored(document: string, identity: { id: number; tenant_id: number; name: string; version: number }): CompiledPlan | undefined {
    try {
      return compilePlan(JSON.parse(document), identity);
    } catch (error) {
      if (!(error instanceof PlanValidationError || error instanceof SyntaxError)) throw error;
      log(`plan ${identity.id} version ${identity.version} cannot run: ${error.message}`);
      return undefined;
    }
  }

  /**
   * A promise only when the version is not compiled yet: every turn asks for its plan, and a
   * promise cost it an async frame and microtasks (EnginePorts: a port may answer at once).
   */
  function loadVersion(tenantId: number, planId: number, version: number): MaybePromise<CompiledPlan | undefined> {
    if (!isRowId(tenantId, planId) || !Number.isInteger(version)) return undefined;
    const key = `${planId}:${version}`;
    const cached = cache.get(key);
    if (cached) return cached.tenant_id === tenantId ? cached : undefined;
    return compileVersion(tenantId, planId, version, key);
  }

  async function compileVersion(tenantId: number, planId: number, version: number, key: string): Promise<CompiledPlan | undefined> {
    const row = await db
      .selectFrom('visual_plan_versions')
      .select(['tenant_id', 'name', 'document'])
      .where('plan_id', '=', planId)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!row || row.tenant_id !== tenantId) return undefined;
    const plan = compileStored(row.document, { id: planId, tenant_id: row.tenant_id, name: row.name, version });
    return plan && remember(key, plan);
  }

  /** At once when the draft's version is in the read cache and compiled; a test session asks on every turn. */
  function loadDraft(tenantId: number, planId: number, version: number): MaybePromise<CompiledPlan | undefined> {
    if (!isRowId(tenantId, planId)) return undefined;
    const row = versionsNow(tenantId, planId);
    if (row instanceof Promise) return row.then((read) => draftOf(tenantId, planId, version, read?.version));
    return draftOf(tenantId, planId, version, row?.version);
  }

  function draftOf(tenantId: number, planId: number, version: number, current: number | undefined): MaybePromise<CompiledPlan | undefined> {
    if (current !== version) return undefined;
    const key = `draft:${planId}:${version}`;
    const cached = cache.get(key);
    if (cached) return cached;
    return compileDraft(tenantId, planId, version, key);
  }

  async function compileDraft(tenantId: number, planId: number, version: number, key: string): Promise<CompiledPlan | undefined> {
    const row = await db
      .selectFrom('visual_plans')
      .select(['tenant_id', 'name', 'document', 'version'])
      .where('id', '=', planId)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    // Saved again between the two reads: this version is gone.
    if (!row || row.version !== version) return undefined;
    const plan = compileStored(row.document, { id: planId, tenant_id: row.tenant_id, name: row.name, version });
    return plan && remember(key, plan);
  }

  const versionsOf = (tenantId: number, planId: number) => readPlanVersions(db, readCache, tenantId, planId);
  const versionsNow = (tenantId: number, planId: number) => readPlanVersionsNow(db, readCache, tenantId, planId);
  const publishedOf = (tenantId: number, planId: number, contactKey: string | undefined, row: PlanVersions | undefined): MaybePromise<CompiledPlan | undefined> => {
    const version = row && chosenVersion(planId, row, contactKey);
    if (version === null || version === undefined) return undefined;
    return loadVersion(tenantId, planId, version);
  };

  async function draftVersion(tenantId: number, planId: number): Promise<number | undefined> {
    if (!isRowId(tenantId, planId)) return undefined;
    return (await versionsOf(tenantId, planId))?.version;
  }

  const draftLoaders = new Map<number, PlanLoader>();
  const published: PlanLoader = {
    load: loadVersion,
    loadPublished(tenantId, planId, contactKey) {
      if (!isRowId(tenantId, planId)) return undefined;
      const row = versionsNow(tenantId, planId);
      if (row instanceof Promise) return row.then((read) => publishedOf(tenantId, planId, contactKey, read));
      return publishedOf(tenantId, planId, contactKey, row);
    },
  };

  return {
    published,
    draftVersion,
    withDraft(draftPlanId) {
      // Kept per plan: every turn of a test session asks for its loader.
      let loader = draftLoaders.get(draftPlanId);
      if (loader) return loader;
      loader = {
        // A draft version that was published as it stood is the same document, so it may run
        // from the published copy once the draft has moved on.
        load: (tenantId, planId, version) => {
          if (planId !== draftPlanId) return loadVersion(tenantId, planId, version);
          const draft = loadDraft(tenantId, planId, version);
          if (draft instanceof Promise) return draft.then((loaded) => loaded ?? loadVersion(tenantId, planId, version));
          return draft ?? loadVersion(tenantId, planId, version);
        },
        loadPublished: published.loadPublished,
      };
      if (draftLoaders.size >= CACHE_SIZE) draftLoaders.delete(draftLoaders.keys().next().value!);
      draftLoaders.set(draftPlanId, loader);
      return loader;
    },
  };
}
