/**
 * The campaign dispatcher (docs/campaigns.md, "Dispatch"): every instance runs one. A pass claims,
 * for each running campaign, the contacts whose calls may start within the next moment, in one
 * transaction that holds the campaign's row (PostgreSQL: FOR UPDATE; SQLite: its one writer), so
 * that the pacing slot, the count of calls at once and the contacts are decided by one instance at
 * a time; contacts are read FOR UPDATE SKIP LOCKED besides. Each claimed call is then placed at its
 * slot. Outcomes come from the outbound core's listener, and a recovery pass finishes what an
 * instance that died (kill -9) left in progress.
 */
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { doNotCallAmong } from '../do-not-call/do-not-call.service.ts';
import { numbersInCall } from '../outbound-calls/outbound-calls.repository.ts';
import { countRunningCalls } from '../sessions/sessions.repository.ts';
import { applyOutcome, outcomeOf, releaseClaim } from './attempt-outcomes.ts';
import type { CampaignCallOutcome, CampaignCalls } from './campaign-calls.ts';
import { publishProgressSoon } from './campaigns.service.ts';
import { removeExpiredStaged } from './contacts-import.ts';
import { openZones } from './schedule-zones.ts';

export interface DispatcherOptions {
  calls: CampaignCalls;
  /** Milliseconds since the epoch; tests pass a clock they move. */
  now?: () => number;
  /** How often a pass runs; a pass also claims the calls whose slots fall before the next one. */
  intervalMs?: number;
  /**
   * How long a claim whose call has no session yet belongs to its instance: past it, the recovery
   * pass decides from the stored calls whether the call was placed.
   */
  leaseS?: number;
  /**
   * How far back a late pass makes up the slots it missed (placed at once): the most a campaign may
   * run ahead of its pace for a moment, so that on average it keeps it.
   */
  burstMs?: number;
  /** How long a call the licence, the provider's pace or a number in another call held back waits before it is tried again. */
  backoffMs?: number;
  log?: (message: string) => void;
  /** Places a call at its slot; tests pass one that places at once. */
  schedule?: (atMs: number, run: () => void) => void;
}

export interface Dispatcher {
  start(): void;
  /** No new pass or call starts; resolves once those under way are done. */
  stop(): Promise<void>;
  /** One pass: recovery, claims, completion. Answers the calls it claimed. */
  pass(): Promise<number>;
  /** Resolves once every call claimed so far has been handed to the core (or refused). */
  placed(): Promise<void>;
}

type Ctx = Pick<AppContext, 'db' | 'dialect' | 'bus' | 'license' | 'channels'>;

interface Claimed {
  id: number;
  phone: string;
  variables: string;
  atMs: number;
}

const ISO = (ms: number) => new Date(ms).toISOString();

/** Codes of the core's refusals that tell the contact's own fate (not a pause of the campaign). */
const finalRefusals: Record<string, 'dont_call' | 'invalid_args'> = { outbound_do_not_call: 'dont_call', invalid_phone_number: 'invalid_args' };
/**
 * Refusals about the campaign, not the contact (its plan is not published, its number cannot call,
 * the provider refuses the tenant's credentials): the call goes back to the queue and the campaign
 * is paused, rather than every contact failing one by one.
 */
const campaignRefusals = new Set(['plan_not_published', 'outbound_no_plan', 'outbound_number_not_found', 'outbound_number_cannot_call', 'outbound_provider_not_configured', 'outbound_provider_auth_refused']);
/**
 * Refusals that only mean "not now": the licence's sessions, the provider's pace, a number another
 * campaign of the tenant (or the API) rings at the same moment, claimed while this claim was.
 */
const heldBack = new Set(['license_sessions_limit_reached', 'outbound_provider_rate_limited', 'outbound_number_in_call']);

export function createDispatcher(ctx: Ctx, options: DispatcherOptions): Dispatcher {
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 200;
  const leaseMs = (options.leaseS ?? 60) * 1000;
  const backoffMs = options.backoffMs ?? 5000;
  const burstMs = options.burstMs ?? 1000;
  const log = options.log ?? (() => {});
  const schedule = options.schedule ?? ((atMs, run) => void setTimeout(run, Math.max(0, atMs - now())).unref());
  const placing = new Set<Promise<void>>();
  // Numbers this instance claimed whose call is not placed yet, by tenant: the calls table does not
  // show them until the core stores the call, and another campaign's claim in the same pass would
  // dial the number again (the core then refuses it; another instance's still can, see `place`).
  const claimedHere = new Set<string>();
  const claimKey = (tenantId: number, phone: string) => `${tenantId}\u0000${phone}`;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  options.calls.onOutcome(async (outcome) => handleOutcome(outcome));

  async function handleOutcome(outcome: CampaignCallOutcome): Promise<void> {
    // A chat's outcome is known before it ends (its opening message delivered): it settles the contact then.
    if (outcome.campaign_id === null || !(outcome.ended || outcome.settled === true)) return;
    const call = await ctx.db.selectFrom('outbound_calls').select('called').where('session_id', '=', outcome.session_id).executeTakeFirst();
    if (!call) return;
    const changed = await applyOutcome(ctx.db, { campaignId: outcome.campaign_id, phone: call.called, sessionId: outcome.session_id }, outcomeOf(outcome.dial_status, outcome.answered_by), now());
    if (changed) publishProgressSoon(ctx, outcome.campaign_id);
  }

  /** The calls a campaign may start now and within the next pass, claimed in one transaction. */
  async function claim(campaignId: number, licenceRoom: number): Promise<{ claimed: Claimed[]; dontCall: number }> {
    const nowMs = now();
    const campaign = await ctx.db
      .selectFrom('campaigns as k')
      .innerJoin('numbers as n', 'n.id', 'k.number_id')
      .select(['k.tenant_id', 'k.date_range_id', 'k.number_id', 'n.provider'])
      .where('k.id', '=', campaignId)
      .executeTakeFirst();
    if (!campaign) return { claimed: [], dontCall: 0 };
    // A number's daily reach (WhatsApp's messaging limit): past it the contacts wait, uncounted, for the 24 hours to roll.
    const reachLeft = (await options.calls.reachLeft?.(campaign.number_id)) ?? Infinity;
    if (reachLeft <= 0) return { claimed: [], dontCall: 0 };
    const zones = campaign.date_range_id === null ? null : await openZones(ctx.db, campaign.tenant_id, campaign.date_range_id, campaignId, nowMs);
    if (zones !== null && zones.zones.length === 0 && !zones.tenantZoneOpen) return { claimed: [], dontCall: 0 };
    const providerPace = options.calls.callsPerSecond(campaign.provider);
    const account = `${campaign.provider}:${campaign.tenant_id}`;

    return ctx.db.transaction().execute(async (trx) => {
      let lockCampaign = trx.selectFrom('campaigns').select(['status', 'calls_per_second', 'max_concurrent', 'next_dial_at', 'machine_detection', 'plan_id', 'number_id']).where('id', '=', campaignId);
      if (ctx.dialect === 'postgres') lockCampaign = lockCampaign.forUpdate();
      const row = await lockCampaign.executeTakeFirst();
      if (!row || row.status !== 'running') return { claimed: [], dontCall: 0 };
      const inProgress = await trx.selectFrom('campaign_contacts').select((eb) => eb.fn.countAll<string | number>().as('count')).where('campaign_id', '=', campaignId).where('state', '=', 'in_progress').executeTakeFirstOrThrow();
      const room = Math.min(row.max_concurrent - Number(inProgress.count), licenceRoom, reachLeft);
      if (room <= 0) return { claimed: [], dontCall: 0 };

      // The account's slot, shared by its campaigns: made on first use, then held with the campaign's.
      let accountNext = -Infinity;
      if (providerPace !== undefined) {
        await trx.insertInto('campaign_pacing').values({ account, next_dial_at: '' }).onConflict((oc) => oc.column('account').doNothing()).execute();
        let lockAccount = trx.selectFrom('campaign_pacing').select('next_dial_at').where('account', '=', account);
        if (ctx.dialect === 'postgres') lockAccount = lockAccount.forUpdate();
        const paced = await lockAccount.executeTakeFirstOrThrow();
        accountNext = paced.next_dial_at === '' ? -Infinity : Date.parse(paced.next_dial_at);
      }
      const campaignGap = 1000 / row.calls_per_second;
      const accountGap = providerPace === undefined ? 0 : 1000 / providerPace;
      let campaignNext = row.next_dial_at === '' ? -Infinity : Date.parse(row.next_dial_at);
      // Slots up to the next pass: one campaign gap apart, and one account gap from any other campaign's.
      // A pass that runs late (a loaded machine) still owes the slots since the last one claimed, and
      // claims them to be placed at once, or the average falls below the pace; at most burstMs of them,
      // so that a campaign idle for a while (paused, held at max_concurrent, waiting for retries) does
      // not make up its idle time in one rush. The first call of a campaign starts now.
      const slots: number[] = [];
      let slot = Math.max(campaignNext === -Infinity ? nowMs : nowMs - burstMs, campaignNext, accountNext);
      while (slot <= nowMs + intervalMs && slots.length < room) {
        slots.push(slot);
        campaignNext = slot + campaignGap;
        accountNext = slot + accountGap;
        slot = Math.max(campaignNext, accountNext);
      }
      if (slots.length === 0) return { claimed: [], dontCall: 0 };

      let due = trx
        .selectFrom('campaign_contacts')
        .select(['id', 'phone', 'variables', 'time_zone'])
        .where('campaign_id', '=', campaignId)
        .where('state', '=', 'pending')
        .where((eb) => eb.or([eb('next_attempt_time', 'is', null), eb('next_attempt_time', '<=', ISO(nowMs))]));
      if (zones !== null) {
        due = due.where((eb) => {
          const open = [];
          if (zones.zones.length > 0) open.push(eb('time_zone', 'in', zones.zones));
          if (zones.tenantZoneOpen) open.push(eb('time_zone', 'is', null));
          return eb.or(open);
        });
      }
      // Retries whose time has come first, then the list in its order.
      let ordered = due.orderBy('next_attempt_time').orderBy('id').limit(slots.length);
      if (ctx.dialect === 'postgres') ordered = ordered.forUpdate().skipLocked();
      const contacts = await ordered.execute();
      if (contacts.length === 0) return { claimed: [], dontCall: 0 };

      // The do-not-call list is read when the call would be made: a number added after the upload is not dialled either.
      const listed = await doNotCallAmong(trx, campaign.tenant_id, contacts.map((contact) => contact.phone));
      // A number the tenant has a call to now (another campaign's, the API's) waits: not an attempt, not a failure.
      const inCall = await numbersInCall(trx, campaign.tenant_id, contacts.filter((contact) => !listed.has(contact.phone)).map((contact) => contact.phone));
      for (const contact of contacts) if (claimedHere.has(claimKey(campaign.tenant_id, contact.phone))) inCall.add(contact.phone);
      const toCall = contacts.filter((contact) => !listed.has(contact.phone) && !inCall.has(contact.phone));
      const stamp = ISO(nowMs);
      if (inCall.size > 0) {
        await trx
          .updateTable('campaign_contacts')
          .set({ next_attempt_time: ISO(nowMs + backoffMs), updated_time: stamp })
          .where('id', 'in', contacts.filter((contact) => inCall.has(contact.phone)).map((contact) => contact.id))
          .execute();
      }
      if (listed.size > 0) {
        await trx
          .updateTable('campaign_contacts')
          .set({ state: 'done', last_outcome: 'dont_call', next_attempt_time: null, updated_time: stamp })
          .where('id', 'in', contacts.filter((contact) => listed.has(contact.phone)).map((contact) => contact.id))
          .execute();
      }
      if (toCall.length > 0) {
        await trx
          .updateTable('campaign_contacts')
          .set((eb) => ({
            state: 'in_progress',
            attempts: eb('attempts', '+', 1),
            claimed_at: stamp,
            lease_until: ISO(nowMs + leaseMs),
            last_session_id: null,
            last_attempt_time: stamp,
            updated_time: stamp,
          }))
          .where('id', 'in', toCall.map((contact) => contact.id))
          .execute();
        // Only the slots used move the clocks on: the next claim starts right after the last call.
        const last = slots[toCall.length - 1]!;
        await trx.updateTable('campaigns').set({ next_dial_at: ISO(last + campaignGap) }).where('id', '=', campaignId).execute();
        if (providerPace !== undefined) await trx.updateTable('campaign_pacing').set({ next_dial_at: ISO(last + accountGap) }).where('account', '=', account).execute();
      }
      return { claimed: toCall.map((contact, index) => ({ id: contact.id, phone: contact.phone, variables: contact.variables, atMs: slots[index]! })), dontCall: listed.size };
    });
  }

  async function place(campaignId: number, request: { tenant_id: number; from: string; plan_id: number; machine_detection: boolean }, contact: Claimed): Promise<void> {
    try {
      const { session_id } = await options.calls.place({ ...request, to: contact.phone, variables: JSON.parse(contact.variables) as Record<string, string>, campaign_id: campaignId });
      // Unless its outcome came first (and set it), the attempt now names its session.
      await ctx.db
        .updateTable('campaign_contacts')
        .set({ last_session_id: session_id })
        .where('id', '=', contact.id)
        .where('state', '=', 'in_progress')
        .where('last_session_id', 'is', null)
        .execute();
    } catch (error) {
      const code = error instanceof AppError ? error.code : '';
      // A WhatsApp number's daily reach, filled between the claim and the call (the API's, another campaign's): not now either.
      if (heldBack.has(code) || code === 'whatsapp_daily_limit_reached') {
        // The licence is full or the provider asks to slow down: the call waits, it does not fail.
        await releaseClaim(ctx.db, contact.id, now() + backoffMs);
        return;
      }
      if (campaignRefusals.has(code)) {
        await releaseClaim(ctx.db, contact.id, now());
        const paused = await ctx.db.updateTable('campaigns').set({ status: 'paused', updated_time: ISO(now()) }).where('id', '=', campaignId).where('status', '=', 'running').executeTakeFirst();
        if (Number(paused.numUpdatedRows) > 0) log(`campaign ${campaignId} paused: the core refused its calls (${code})`);
        publishProgressSoon(ctx, campaignId);
        return;
      }
      const outcome = finalRefusals[code] ?? 'failed';
      if (!(error instanceof AppError)) log(`campaign ${campaignId}: placing a call failed: ${error instanceof Error ? error.message : String(error)}`);
      await applyOutcome(ctx.db, { campaignId, phone: contact.phone, sessionId: null }, outcome, now());
    }
    publishProgressSoon(ctx, campaignId);
  }

  /** Contacts left in progress by an instance that stopped (or whose outcome nobody heard). */
  async function recover(): Promise<void> {
    const nowMs = now();
    // Calls that ended while no listener ran: their outcome is stored with the call.
    const ended = await ctx.db
      .selectFrom('campaign_contacts as c')
      .innerJoin('outbound_calls as o', 'o.session_id', 'c.last_session_id')
      .select(['c.campaign_id', 'c.phone', 'o.session_id', 'o.dial_status', 'o.answered_by'])
      .where('c.state', '=', 'in_progress')
      .where('o.state', '=', 'ended')
      .limit(500)
      .execute();
    for (const call of ended) {
      await applyOutcome(ctx.db, { campaignId: call.campaign_id, phone: call.phone, sessionId: call.session_id }, outcomeOf(call.dial_status, call.answered_by), nowMs);
      publishProgressSoon(ctx, call.campaign_id);
    }
    // Claims past their lease with no session: the call was placed (the core stores it first) or never was.
    const expired = await ctx.db
      .selectFrom('campaign_contacts')
      .select(['id', 'campaign_id', 'phone', 'claimed_at'])
      .where('state', '=', 'in_progress')
      .where('last_session_id', 'is', null)
      .where('lease_until', '<', ISO(nowMs))
      .limit(500)
      .execute();
    for (const contact of expired) {
      const call = await options.calls.findCallTo(contact.campaign_id, contact.phone, contact.claimed_at ?? '');
      if (call) {
        await ctx.db.updateTable('campaign_contacts').set({ last_session_id: call.session_id }).where('id', '=', contact.id).where('last_session_id', 'is', null).execute();
        if (call.ended) await applyOutcome(ctx.db, { campaignId: contact.campaign_id, phone: contact.phone, sessionId: call.session_id }, outcomeOf(call.dial_status, call.answered_by), nowMs);
      } else {
        log(`campaign ${contact.campaign_id}: a claimed call was never placed (its instance stopped); it goes back to the queue`);
        await releaseClaim(ctx.db, contact.id, nowMs);
      }
      publishProgressSoon(ctx, contact.campaign_id);
    }
  }

  /** Running campaigns with nothing left to call or to hear become completed. */
  async function complete(campaignIds: number[]): Promise<void> {
    for (const id of campaignIds) {
      const left = await ctx.db.selectFrom('campaign_contacts').select('id').where('campaign_id', '=', id).where('state', 'in', ['pending', 'in_progress']).limit(1).executeTakeFirst();
      if (left) continue;
      const stamp = ISO(now());
      const done = await ctx.db.updateTable('campaigns').set({ status: 'completed', finished_time: stamp, updated_time: stamp }).where('id', '=', id).where('status', '=', 'running').executeTakeFirst();
      if (Number(done.numUpdatedRows) > 0) publishProgressSoon(ctx, id);
    }
  }

  /** Sessions the licence still allows: what runs now, or what the campaigns have in progress, whichever is more. */
  async function licenceRoom(): Promise<number> {
    const [limits, running, campaignCalls] = await Promise.all([
      ctx.license.limits(),
      countRunningCalls(ctx.db),
      ctx.db.selectFrom('campaign_contacts').select((eb) => eb.fn.countAll<string | number>().as('count')).where('state', '=', 'in_progress').executeTakeFirstOrThrow(),
    ]);
    return limits.concurrent_sessions - Math.max(running, Number(campaignCalls.count));
  }

  async function pass(): Promise<number> {
    await recover();
    const campaigns = await ctx.db
      .selectFrom('campaigns as k')
      .innerJoin('numbers as n', 'n.id', 'k.number_id')
      .select(['k.id', 'k.tenant_id', 'k.plan_id', 'k.machine_detection', 'n.number'])
      .where('k.status', '=', 'running')
      .orderBy('k.id')
      .execute();
    let claimedCount = 0;
    let room = campaigns.length > 0 ? await licenceRoom() : 0;
    for (const campaign of campaigns) {
      if (stopped || room <= 0) break;
      const { claimed, dontCall } = await claim(campaign.id, room);
      room -= claimed.length;
      claimedCount += claimed.length;
      if (dontCall > 0) publishProgressSoon(ctx, campaign.id);
      const request = { tenant_id: campaign.tenant_id, from: campaign.number, plan_id: campaign.plan_id, machine_detection: campaign.machine_detection === 1 };
      for (const contact of claimed) {
        let settle!: () => void;
        const done = new Promise<void>((resolve) => (settle = resolve));
        placing.add(done);
        const key = claimKey(campaign.tenant_id, contact.phone);
        claimedHere.add(key);
        schedule(contact.atMs, () => {
          void place(campaign.id, request, contact)
            .catch((error: unknown) => log(`campaign ${campaign.id}: ${error instanceof Error ? error.message : String(error)}`))
            .finally(() => {
              claimedHere.delete(key);
              placing.delete(done);
              settle();
            });
        });
      }
      if (claimed.length > 0) publishProgressSoon(ctx, campaign.id);
    }
    await complete(campaigns.map((campaign) => campaign.id));
    return claimedCount;
  }

  return {
    start() {
      if (timer) return;
      void removeExpiredStaged(ctx.db).catch(() => {});
      timer = setInterval(() => {
        if (running || stopped) return;
        running = pass()
          .catch((error: unknown) => log(`campaign dispatch failed: ${error instanceof Error ? error.message : String(error)}`))
          .finally(() => (running = undefined));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
      await Promise.all(placing);
    },
    pass,
    async placed() {
      await Promise.all(placing);
    },
  };
}
