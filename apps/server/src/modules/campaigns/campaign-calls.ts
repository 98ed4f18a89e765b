/**
 * What the campaigns need of the outbound core (docs/outbound.md, "For campaigns"): place a call,
 * hear its outcome, and, for the recovery pass, find a call placed for a contact whose instance
 * died before it stored the session. The dispatcher takes these as a port so that its tests run
 * with a fake placer and the server wires the real core.
 */
import type { AnsweredBy, ReportDialStatus } from '@voxplan/contracts';
import type { AppContext } from '../../context.ts';

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
}

/** Providers whose channel can place calls. */
const callingProviders = new Set(['twilio', 'asterisk']);

/** Whether a number of this provider can start a call (a web chat or WhatsApp cannot). */
export function providerCanCall(_app: Pick<AppContext, 'channels'>, provider: string): boolean {
  return callingProviders.has(provider);
}
