/**
 * The outbound core's contract with the channels and the campaigns (docs/outbound.md). A channel
 * that can place calls implements `OutboundDialer` (context.ts, `Channel.dial`); the app's
 * `ctx.outboundCalls` places a call through it and learns the outcome back from the channel.
 */
import type { AnsweredBy, ReportDialStatus } from '@voxplan/contracts';
import type { UndeliveredCode } from '@voxplan/engine';
import type { TurnOptions, TurnOutcome } from '../sessions/session-runtime.ts';

export type { AnsweredBy };

/** A call to place, as the API and the campaigns ask for it; every number already E.164. */
export interface OutboundCallRequest {
  tenant_id: number;
  /** The tenant's number to call from (E.164): its provider places the call. */
  from: string;
  /** The number to call (E.164). */
  to: string;
  /** Variables every block sees; `answered_by` is the server's and is replaced. */
  variables: Record<string, string>;
  machine_detection: boolean;
  /** Where the outcome is posted, signed as the plan webhook; checked by the caller (the API's schema). */
  status_url?: string;
  /** The campaign that places it: kept on the call and its report, so reports filter by campaign. */
  campaign_id?: number;
  /** The plan to run; left out: the voice plan of `from`. A campaign names its own. */
  plan_id?: number;
  /** How long the callee's phone rings before the call is `no_answer`. Default 30, at most 120. */
  ring_timeout_s?: number;
}

/** What the campaigns hear of a call: once answered (ended false), and once over (ended true). */
export interface OutboundOutcome {
  session_id: string;
  tenant_id: number;
  campaign_id: number | null;
  /** `answer` once answered; else how the dial ended (busy, no_answer, failed, cancel…). */
  dial_status: ReportDialStatus;
  answered_by: AnsweredBy | null;
  ended: boolean;
  /**
   * A chat's outcome is known before it ends (docs/outbound.md, "WhatsApp"): its opening message
   * was delivered (`answer`) while the conversation goes on. Campaigns settle the contact on it.
   */
  settled?: boolean;
}

/** How a dial that nobody answered ended, as the channel learned it. */
export interface DialResult {
  /** Not `answer`: an answered call starts its plan through `answered` instead. */
  dial_status: Exclude<ReportDialStatus, 'answer'>;
  answered_by?: AnsweredBy;
  provider_call_id?: string;
}

/** The callee answered: the channel starts the session's plan (Twilio's voice webhook, Asterisk's FastAGI). */
export interface AnswerRequest {
  provider_call_id?: string;
  /** Known before the first block (synchronous detection: Asterisk's AMD()); else set later by `machineResult`. */
  answered_by?: AnsweredBy;
  source_ip?: string | null;
  /** As for `ctx.sessions.start`: the channel's signature check of the session's tenant. */
  authorize?: TurnOptions['authorize'];
}

/** The outbound service on the app's context (`ctx.outboundCalls`). */
export interface OutboundCalls {
  /**
   * Checks and stores the call (state `queued`), then asks the number's channel to dial it (state
   * `dialing`). A refusal (the number is not the tenant's, its provider cannot call, the number is on
   * the do-not-call list, the licence, the provider's answer) throws an AppError with its catalogue
   * code and leaves nothing stored.
   */
  place(request: OutboundCallRequest): Promise<{ session_id: string }>;
  /** Told on the instance that learned an outcome, once it is stored (the campaigns' dispatcher). */
  onOutcome(listener: (outcome: OutboundOutcome) => Promise<void>): void;
  /**
   * A dial nobody answered: the call ends, its report (`direction: outbound`, this dial status) is
   * written, the plan never ran. Idempotent: a second result for an ended call changes nothing.
   */
  dialResult(sessionId: string, result: DialResult): Promise<void>;
  /**
   * The callee answered: starts the session's plan (variables, `answered_by`, `direction: outbound`)
   * and answers its first turn, as `ctx.sessions.start` does; the same answer again (a provider's
   * retry) answers the stored first turn. A call not found, or already over, throws `session_not_found`.
   */
  answered(sessionId: string, answer: AnswerRequest): Promise<TurnOutcome>;
  /** Machine detection answered after the plan started (Twilio's asynchronous AMD): `answered_by` is set for the blocks that follow. Idempotent. */
  machineResult(sessionId: string, answeredBy: AnsweredBy): Promise<void>;
  /**
   * Ends as `failed` the calls whose end never came: still queued 2 minutes after they were
   * stored (the process died before the provider answered), or ringing 15 minutes past their ring
   * timeout. Run by the retention job on every instance; answers the ids it ended.
   */
  sweepStale(now?: Date): Promise<string[]>;
  /**
   * What became of an outbound chat's opening message (the channel's delivery statuses):
   * `delivered` or `read` settles the outcome as `answer`; `failed` makes it `failed` and ends the
   * conversation if it still waits (its report's failure: `code`). Statuses of any other message
   * change nothing. Idempotent.
   */
  openingStatus(sessionId: string, messageId: string, status: OpeningStatus): Promise<void>;
}

export type OpeningStatus = { status: 'delivered' | 'read' } | { status: 'failed'; code: UndeliveredCode; message: string };

/** What a messaging channel made of an outbound chat's first turn: sent (Meta's id for its first message), or not. */
export type ChatOpening = { ok: true; message_id: string } | { ok: false; code: UndeliveredCode; message: string };

/** How many customers a number reached outside their window in the last 24 hours, and how many it may. */
export interface DailyReach {
  reached: number;
  /** Null: no limit. */
  limit: number | null;
  /** When the oldest reach counted leaves the 24 hours (a place frees up); null when none is counted. */
  frees_at: string | null;
}

/** What the core asks a channel to dial. */
export interface OutboundDial {
  session_id: string;
  tenant_id: number;
  /** E.164, the tenant's number of this channel's provider. */
  from: string;
  /** E.164. */
  to: string;
  machine_detection: boolean;
  ring_timeout_s: number;
}
