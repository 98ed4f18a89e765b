/**
 * Keeping a number's message templates as Meta has them (docs/channels-whatsapp.md, "Templates"):
 * read from `GET /{version}/{waba-id}/message_templates`, page after page
 * (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/message_templates/,
 * cursor paging as https://developers.facebook.com/docs/graph-api/results), on demand, every
 * `WHATSAPP_TEMPLATE_SYNC_HOURS` by whichever instance claims the number first, and as Meta's
 * `message_template_status_update` webhook tells of a change.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import { claimDue } from '../../db/due-claims.ts';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { parseTemplate, type MetaTemplate } from '../../lib/whatsapp-template-parse.ts';
import { accountById, type WhatsAppAccount, type WhatsAppContext } from './whatsapp-channel.ts';

const SYNC_TIMEOUT_MS = 15_000;
/** Templates asked per page (Meta's default is 25), and the pages read at most: a WABA holds at most 6,000 templates. */
const PAGE_SIZE = 100;
const MAX_PAGES = 80;
const FIELDS = 'id,name,language,status,category,components,rejected_reason,parameter_format';

export type SyncContext = WhatsAppContext & { config: Pick<Config, 'whatsappTemplateSyncHours'> & WhatsAppContext['config'] };

/** Meta's answer as one of the catalogue's codes: its token refused (190, or any 401), anything else it refused, or not reached. */
function metaRefusal(status: number, body: unknown): AppError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (status === 401 || error?.code === 190) return new AppError(422, 'whatsapp_meta_auth_refused');
  const reason = typeof error?.message === 'string' ? error.message.slice(0, 300) : `HTTP ${status}`;
  return new AppError(422, 'whatsapp_meta_refused', [{ path: 'whatsapp_business_account_id', message: reason }], undefined, { reason });
}

/** Every template of the number's WhatsApp Business Account, following `paging.next`. */
export async function fetchMetaTemplates(ctx: WhatsAppContext, account: WhatsAppAccount): Promise<MetaTemplate[]> {
  if (account.business_account_id === '') throw new AppError(422, 'whatsapp_business_account_missing', [{ path: 'whatsapp_business_account_id', message: 'required' }]);
  if (!account.token) throw new AppError(422, 'whatsapp_incomplete', [{ path: 'whatsapp_token', message: 'required' }]);
  const { whatsappGraphUrl, whatsappGraphVersion } = ctx.config;
  let url: string | undefined =
    `${whatsappGraphUrl}/${whatsappGraphVersion}/${encodeURIComponent(account.business_account_id)}/message_templates?limit=${PAGE_SIZE}&fields=${FIELDS}`;
  const templates: MetaTemplate[] = [];
  for (let page = 0; url && page < MAX_PAGES; page++) {
    let response: Response;
    try {
      response = await fetch(url, { headers: { authorization: `Bearer ${account.token}` }, signal: AbortSignal.timeout(SYNC_TIMEOUT_MS) });
    } catch {
      throw new AppError(502, 'whatsapp_meta_unreachable');
    }
    const body = (await response.json().catch(() => undefined)) as { data?: unknown; paging?: { next?: unknown } } | undefined;
    if (!response.ok || !Array.isArray(body?.data)) throw metaRefusal(response.status, body);
    templates.push(...(body.data as MetaTemplate[]));
    // Meta's `next` is a whole URL on its own host: only its query is taken, so the token never goes elsewhere.
    const next: unknown = body.paging?.next;
    url = typeof next === 'string' && next !== '' ? `${url.split('?')[0]}?${new URL(next).searchParams.toString()}` : undefined;
  }
  return templates;
}

export interface SyncResult {
  templates: number;
  added: number;
  updated: number;
  removed: number;
}

/**
 * Stores the templates Meta lists for the number, in one transaction: each by name and language,
 * new ones added, known ones updated; those Meta no longer lists are removed, never left approved.
 */
export async function storeTemplates(db: Kysely<Database>, account: Pick<WhatsAppAccount, 'number_id' | 'tenant_id'>, metaTemplates: readonly MetaTemplate[], now = new Date()): Promise<SyncResult> {
  const syncedTime = now.toISOString();
  return db.transaction().execute(async (trx) => {
    const stored = await trx.selectFrom('whatsapp_templates').select(['id', 'name', 'language']).where('number_id', '=', account.number_id).execute();
    const byKey = new Map(stored.map((row) => [`${row.name}\u0000${row.language}`, row.id]));
    const seen = new Set<number>();
    const result: SyncResult = { templates: 0, added: 0, updated: 0, removed: 0 };
    for (const meta of metaTemplates) {
      const parsed = parseTemplate(meta);
      if (parsed.name === '' || parsed.language === '') continue;
      const values = {
        meta_id: parsed.meta_id,
        category: parsed.category,
        status: parsed.status,
        components: JSON.stringify(Array.isArray(meta.components) ? meta.components : []),
        rejected_reason: parsed.rejected_reason,
        synced_time: syncedTime,
      };
      const id = byKey.get(`${parsed.name}\u0000${parsed.language}`);
      if (id !== undefined && !seen.has(id)) {
        await trx.updateTable('whatsapp_templates').set(values).where('id', '=', id).execute();
        seen.add(id);
        result.updated++;
      } else if (id === undefined) {
        const row = await trx
          .insertInto('whatsapp_templates')
          .values({ ...values, tenant_id: account.tenant_id, number_id: account.number_id, name: parsed.name, language: parsed.language })
          .returning('id')
          .executeTakeFirstOrThrow();
        byKey.set(`${parsed.name}\u0000${parsed.language}`, row.id);
        seen.add(row.id);
        result.added++;
      }
    }
    const gone = stored.filter((row) => !seen.has(row.id)).map((row) => row.id);
    if (gone.length > 0) await trx.deleteFrom('whatsapp_templates').where('id', 'in', gone).execute();
    result.removed = gone.length;
    result.templates = seen.size;
    return result;
  });
}

/** Syncs one number's templates now; refuses (4xx, catalogue codes) a number that is not WhatsApp or lacks what Meta needs, and Meta's refusals. */
export async function syncTemplates(ctx: WhatsAppContext, numberId: number): Promise<SyncResult> {
  const account = await accountById(ctx, numberId);
  if (!account) throw new AppError(404, 'not_found');
  if (account.provider !== 'whatsapp') throw new AppError(422, 'number_not_whatsapp');
  return storeTemplates(ctx.db, account, await fetchMetaTemplates(ctx, account));
}

/**
 * Claims the numbers whose sync is due, each by moving its due time forward only if it still holds
 * the time read: of two instances reading the same number, one moves it, the other finds it moved
 * and leaves it. Answers the ids claimed.
 */
export async function claimDueNumbers(db: Kysely<Database>, intervalHours: number, now = new Date()): Promise<number[]> {
  const due = await db
    .selectFrom('numbers')
    .select(['id', 'whatsapp_templates_due_at'])
    .where('provider', '=', 'whatsapp')
    .where('whatsapp_business_account_id', '!=', '')
    .where('whatsapp_token', 'is not', null)
    .where((eb) => eb.or([eb('whatsapp_templates_due_at', 'is', null), eb('whatsapp_templates_due_at', '<=', now.toISOString())]))
    .orderBy('id')
    .limit(100)
    .execute();
  const next = new Date(now.getTime() + intervalHours * 3600_000).toISOString();
  return claimDue(db, 'numbers', 'whatsapp_templates_due_at', due.map((number) => ({ id: number.id, due: number.whatsapp_templates_due_at })), next);
}

/** One pass of the periodic sync: the numbers this instance claimed, each synced; a failure is logged and waits for the next interval. */
export async function syncDueTemplates(ctx: SyncContext, log: Pick<FastifyBaseLogger, 'warn'>, now = new Date()): Promise<number[]> {
  const claimed = await claimDueNumbers(ctx.db, ctx.config.whatsappTemplateSyncHours, now);
  for (const numberId of claimed) {
    try {
      await syncTemplates(ctx, numberId);
    } catch (error) {
      log.warn({ number_id: numberId, code: error instanceof AppError ? error.code : undefined, err: error instanceof AppError ? undefined : error }, 'WhatsApp templates not synced');
    }
  }
  return claimed;
}

/** How often an instance looks for numbers due: their due time itself is hours apart. */
const LOOK_EVERY_MS = 5 * 60_000;

/** The periodic sync on this instance; off when WHATSAPP_TEMPLATE_SYNC_HOURS is 0. */
export function startTemplateSync(ctx: SyncContext, log: FastifyBaseLogger): { close(): Promise<void> } | null {
  if (ctx.config.whatsappTemplateSyncHours <= 0) return null;
  let running: Promise<unknown> = Promise.resolve();
  const pass = () => {
    running = syncDueTemplates(ctx, log).catch((error: unknown) => log.warn({ err: error }, 'WhatsApp template sync pass failed'));
  };
  const timer = setInterval(pass, LOOK_EVERY_MS);
  timer.unref();
  pass();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}

/** Meta's `message_template_status_update` events as the status stored (lower-case, as the list gives it). */
const statusOfEvent: Record<string, string> = {
  APPROVED: 'approved',
  REJECTED: 'rejected',
  PAUSED: 'paused',
  DISABLED: 'disabled',
  PENDING: 'pending',
  PENDING_DELETION: 'pending_deletion',
  DELETED: 'deleted',
  FLAGGED: 'flagged',
  REINSTATED: 'approved',
  IN_APPEAL: 'in_appeal',
  ARCHIVED: 'archived',
  UNARCHIVED: 'approved',
  LIMIT_EXCEEDED: 'limit_exceeded',
};

export interface TemplateStatusUpdate {
  event: string;
  message_template_id?: string | number | undefined;
  message_template_name?: string | undefined;
  message_template_language?: string | undefined;
  reason?: string | null | undefined;
}

/**
 * A status change Meta announced for a template of the WhatsApp Business Account `wabaId`, applied
 * to the tenant's numbers of that account. A deleted template is removed. A template not stored yet
 * (approved before any sync) makes those numbers sync now. Answers the numbers touched.
 */
export async function applyTemplateStatus(ctx: WhatsAppContext, tenantId: number, wabaId: string, update: TemplateStatusUpdate, log: Pick<FastifyBaseLogger, 'warn'>): Promise<number[]> {
  const status = statusOfEvent[update.event.toUpperCase()];
  if (!status || wabaId === '') return [];
  const numbers = await ctx.db.selectFrom('numbers').select('id').where('tenant_id', '=', tenantId).where('provider', '=', 'whatsapp').where('whatsapp_business_account_id', '=', wabaId).execute();
  const ids = numbers.map((number) => number.id);
  if (ids.length === 0) return [];
  const metaId = update.message_template_id === undefined ? '' : String(update.message_template_id);
  const which = ctx.db.selectFrom('whatsapp_templates').select('id').where('number_id', 'in', ids).where((eb) =>
    eb.or([
      ...(metaId !== '' ? [eb('meta_id', '=', metaId)] : []),
      eb.and([eb('name', '=', update.message_template_name ?? ''), eb('language', '=', update.message_template_language ?? '')]),
    ]),
  );
  const matching = await which.execute();
  if (status === 'deleted') {
    if (matching.length > 0) await ctx.db.deleteFrom('whatsapp_templates').where('id', 'in', matching.map((row) => row.id)).execute();
    return ids;
  }
  if (matching.length > 0) {
    const reason = status === 'rejected' && update.reason && update.reason !== 'NONE' ? update.reason : '';
    await ctx.db
      .updateTable('whatsapp_templates')
      .set({ status, rejected_reason: reason, synced_time: new Date().toISOString() })
      .where('id', 'in', matching.map((row) => row.id))
      .execute();
    return ids;
  }
  // Not known yet: its components come only with the list.
  for (const id of ids) {
    try {
      await syncTemplates(ctx, id);
    } catch (error) {
      log.warn({ number_id: id, code: error instanceof AppError ? error.code : undefined }, 'WhatsApp templates not synced after a status update');
    }
  }
  return ids;
}
