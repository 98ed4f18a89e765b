/**
 * What the campaigns need of the outbound core (docs/outbound.md, "For campaigns"): place a call,
 * hear its outcome, and, for the recovery pass, find a call placed for a contact whose instance
 * died before it stored the session. The dispatcher takes these as a port so that its tests run
 * with a fake placer and the server wires the real core.
 */
import type { AnsweredBy, ReportDialStatus } from '@voxplan/contracts';
import type { AppContext } from '../../context.ts';
import type { ResourceHost } from '../../resources/definition.ts';

/** A call to place (the core's OutboundCallRequest); every number E.164. */
export interface CampaignCallRequest {
  tenant_id: number;
  from: string;
  to: string;
  variables: Record<string, string>;
  machine_detection: boolean;
  campaign_id: number;
  plan_id: number;
}

/** What the core tells of a call: once answered (ended false), once over (ended true). */
export interface CampaignCallOutcome {
  session_id: string;
  tenant_id: number;
  campaign_id: number | null;
  dial_status: ReportDialStatus;
  answered_by: AnsweredBy | null;
  ended: boolean;
  /** A chat's outcome known before it ends (its opening message delivered): the contact is settled on it. */
  settled?: boolean;
}

/** A call as stored by the core, for the recovery pass. */
export interface StoredCall {
  session_id: string;
  ended: boolean;
  dial_status: ReportDialStatus | null;
  answered_by: AnsweredBy | null;
}

export interface CampaignCalls {
  /** Stores the call before the provider has it, then dials; a refusal throws an AppError and stores nothing. */
  place(request: CampaignCallRequest): Promise<{ session_id: string }>;
  onOutcome(listener: (outcome: CampaignCallOutcome) => Promise<void>): void;
  /** The call with this session id. */
  findCall(sessionId: string): Promise<StoredCall | null>;
  /** The call placed by this campaign to this number since `since` (ISO): one at most, since a number is never called twice at once. */
  findCallTo(campaignId: number, to: string, since: string): Promise<StoredCall | null>;
  /** The provider's pace per account (calls a second), where it has one. */
  callsPerSecond(provider: string): number | undefined;
  /**
   * How many more customers the number may reach now, where its provider limits a day's reach
   * (WhatsApp's messaging limit; docs/outbound.md, "Daily reach"); undefined: no limit.
   */
  reachLeft?(numberId: number): Promise<number | undefined>;
}

/**
 * Whether a number of this provider can start a call: its channel dials, as every voice channel
 * does (Twilio, Asterisk); a chat-only one (the web chat, WhatsApp) cannot.
 */
export function providerCanCall(app: Pick<ResourceHost, 'channels'>, provider: string): boolean {
  const channel = app.channels.get(provider);
  return channel !== undefined && (channel.dial !== undefined || channel.sessions.includes('voice'));
}

function storedCall(row: { session_id: string; state: string; dial_status: string | null; answered_by: string | null }): StoredCall {
  return {
    session_id: row.session_id,
    ended: row.state === 'ended',
    dial_status: row.dial_status as ReportDialStatus | null,
    answered_by: row.answered_by as AnsweredBy | null,
  };
}

/** The port over the server's outbound core (`ctx.outboundCalls`) and its `outbound_calls` rows. */
export function coreCampaignCalls(ctx: Pick<AppContext, 'db' | 'channels' | 'outboundCalls'>): CampaignCalls {
  const columns = ['session_id', 'state', 'dial_status', 'answered_by'] as const;
  return {
    place: (request) => ctx.outboundCalls.place(request),
    onOutcome: (listener) => ctx.outboundCalls.onOutcome(listener),
    async findCall(sessionId) {
      const row = await ctx.db.selectFrom('outbound_calls').select(columns).where('session_id', '=', sessionId).executeTakeFirst();
      return row ? storedCall(row) : null;
    },
    async findCallTo(campaignId, to, since) {
      const row = await ctx.db
        .selectFrom('outbound_calls')
        .select(columns)
        .where('campaign_id', '=', campaignId)
        .where('called', '=', to)
        .where('created_time', '>=', since)
        .orderBy('created_time', 'desc')
        .executeTakeFirst();
      return row ? storedCall(row) : null;
    },
    callsPerSecond: (provider) => ctx.channels.get(provider)?.dial?.callsPerSecond,
    async reachLeft(numberId) {
      const number = await ctx.db.selectFrom('numbers').select('provider').where('id', '=', numberId).executeTakeFirst();
      const reachOf = number && ctx.channels.get(number.provider)?.dial?.chat?.reach;
      if (!reachOf) return undefined;
      const reach = await reachOf(ctx, numberId);
      if (reach.limit === null) return undefined;
      // Claimed and not yet handed to the core: the reach does not count them yet.
      const unplaced = await ctx.db
        .selectFrom('campaign_contacts as c')
        .innerJoin('campaigns as k', 'k.id', 'c.campaign_id')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .where('k.number_id', '=', numberId)
        .where('c.state', '=', 'in_progress')
        .where('c.last_session_id', 'is', null)
        .executeTakeFirstOrThrow();
      return reach.limit - reach.reached - Number(unplaced.count);
    },
  };
}
