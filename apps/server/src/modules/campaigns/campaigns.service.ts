/**
 * A campaign's controls (start, pause, resume, cancel: each audited) and its progress, read from its
 * contacts and told live on the instance bus (docs/campaigns.md).
 */
import { type CampaignAction, campaignActionFrom, campaignOutcomes, type CampaignProgress, type LiveStatsEvent } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { AppContext, Scope } from '../../context.ts';
import type { InstanceBus } from '../../db/instance-bus.ts';
import type { Database } from '../../db/schema.ts';
import { conflict } from '../../errors.ts';
import { nowIso } from '../../lib/time.ts';
import { recordAudit } from '../../resources/audit.recorder.ts';
import { dailyReach } from '../outbound-calls/daily-reach.ts';
import type { ResourceService } from '../../resources/service.ts';

export const CAMPAIGNS_TOPIC = 'campaigns';

const nextStatus = { start: 'running', pause: 'paused', resume: 'running', cancel: 'cancelled' } as const;

/**
 * Applies a control in one transaction with its audit entry (`update` of the campaign, before and
 * after naming the status and the control). Answers the campaign as it is now.
 */
export async function controlCampaign<Out>(ctx: AppContext, service: ResourceService<Out>, scope: Scope, id: number, action: CampaignAction): Promise<Out> {
  service.assertWritable(scope);
  await service.inTransaction(scope, async ({ trx }) => {
    const row = await service.findRow(trx as never, scope, id);
    // On PostgreSQL two controls at once (or a dispatcher's completion) wait here for each other.
    if (ctx.dialect === 'postgres') await trx.selectFrom('campaigns').select('id').where('id', '=', id).forUpdate().execute();
    const current = await trx.selectFrom('campaigns').select(['status', 'tenant_id']).where('id', '=', id).executeTakeFirstOrThrow();
    if (!campaignActionFrom[action].includes(current.status)) {
      throw conflict('campaign_status_invalid', [{ path: 'status', message: `a ${current.status} campaign cannot ${action}` }]);
    }
    if (action === 'start') {
      const contact = await trx.selectFrom('campaign_contacts').select('id').where('campaign_id', '=', id).where('state', '<>', 'staged').limit(1).executeTakeFirst();
      if (!contact) throw conflict('campaign_has_no_contacts');
    }
    const now = nowIso();
    const status = nextStatus[action];
    await trx
      .updateTable('campaigns')
      .set({
        status,
        updated_time: now,
        ...(action === 'start' && { started_time: now }),
        ...(action === 'cancel' && { finished_time: now }),
      })
      .where('id', '=', id)
      .execute();
    await recordAudit(trx, scope, [
      { action: 'update', entity: 'campaign', entityId: id, tenantId: current.tenant_id, before: { name: row.name, status: current.status }, after: { name: row.name, status, control: action } },
    ]);
  });
  publishProgressSoon(ctx, id);
  return service.get(scope, id);
}

/** The counts of a campaign's contacts (staged rows of an upload under way are not yet its). */
export async function campaignProgress(db: Kysely<Database>, campaignId: number): Promise<CampaignProgress | null> {
  const campaign = await db
    .selectFrom('campaigns as k')
    .innerJoin('numbers as n', 'n.id', 'k.number_id')
    .select(['k.status', 'k.number_id', 'n.provider'])
    .where('k.id', '=', campaignId)
    .executeTakeFirst();
  if (!campaign) return null;
  const [groups, invalid] = await Promise.all([
    db
      .selectFrom('campaign_contacts')
      .select(['state', 'last_outcome'])
      .select((eb) => [eb.fn.countAll<string | number>().as('count'), eb.fn.sum<string | number | null>('attempts').as('attempts')])
      .where('campaign_id', '=', campaignId)
      .where('state', '<>', 'staged')
      .groupBy(['state', 'last_outcome'])
      .execute(),
    db
      .selectFrom('campaign_invalid_rows')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('campaign_id', '=', campaignId)
      .where('import_token', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  const progress: CampaignProgress = {
    campaign_id: campaignId,
    status: campaign.status,
    total: 0,
    pending: 0,
    in_progress: 0,
    done: 0,
    by_outcome: Object.fromEntries(campaignOutcomes.map((outcome) => [outcome, 0])) as CampaignProgress['by_outcome'],
    attempts: 0,
    invalid_rows: Number(invalid.count),
    // WhatsApp's messaging limit, the one provider with a daily reach.
    reach: campaign.provider === 'whatsapp' ? await dailyReach(db, campaign.number_id) : null,
  };
  for (const group of groups) {
    const count = Number(group.count);
    progress.total += count;
    progress.attempts += Number(group.attempts ?? 0);
    if (group.state === 'pending') progress.pending += count;
    else if (group.state === 'in_progress') progress.in_progress += count;
    else if (group.state === 'done') {
      progress.done += count;
      const outcome = group.last_outcome as keyof CampaignProgress['by_outcome'] | null;
      if (outcome && outcome in progress.by_outcome) progress.by_outcome[outcome] += count;
    }
  }
  return progress;
}

interface ProgressMessage {
  tenant_id: number;
  event: Extract<LiveStatsEvent, { type: 'campaign.progress' }>;
}

const PUBLISH_EVERY_MS = 1000;
const pendingPublishes = new WeakMap<AppContext, Map<number, ReturnType<typeof setTimeout>>>();

/**
 * Tells the campaign's progress on the bus within a second, at most once a second per campaign and
 * instance (a campaign at 50 calls a second would otherwise send 100 messages a second), and only
 * when someone listens.
 */
export function publishProgressSoon(ctx: Pick<AppContext, 'db' | 'bus'>, campaignId: number, delayMs = PUBLISH_EVERY_MS): void {
  if (!ctx.bus.heard(CAMPAIGNS_TOPIC)) return;
  let timers = pendingPublishes.get(ctx as AppContext);
  if (!timers) pendingPublishes.set(ctx as AppContext, (timers = new Map()));
  if (timers.has(campaignId)) return;
  const scheduled = timers;
  const timer = setTimeout(() => {
    scheduled.delete(campaignId);
    void publishProgress(ctx, campaignId).catch(() => {
      // A live view: the next change publishes again, and GET /campaigns/{id}/progress stays the truth.
    });
  }, delayMs);
  timer.unref();
  timers.set(campaignId, timer);
}

async function publishProgress(ctx: Pick<AppContext, 'db' | 'bus'>, campaignId: number): Promise<void> {
  const progress = await campaignProgress(ctx.db, campaignId);
  const campaign = await ctx.db.selectFrom('campaigns').select('tenant_id').where('id', '=', campaignId).executeTakeFirst();
  if (!progress || !campaign) return;
  const message: ProgressMessage = { tenant_id: campaign.tenant_id, event: { type: 'campaign.progress', progress, at: nowIso() } };
  ctx.bus.publish(CAMPAIGNS_TOPIC, message);
}

/** Calls `listener` with the campaign progress events of every instance (of one tenant when given). */
export function subscribeCampaignProgress(bus: InstanceBus, listener: (event: ProgressMessage['event']) => void, filter: { tenantId?: number } = {}): () => void {
  return bus.subscribe(CAMPAIGNS_TOPIC, (message) => {
    const { tenant_id, event } = message as ProgressMessage;
    if (filter.tenantId === undefined || tenant_id === filter.tenantId) listener(event);
  });
}
