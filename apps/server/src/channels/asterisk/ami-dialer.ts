/**
 * Calls the server places on Asterisk (docs/channels-asterisk.md, "Calls placed by the server"):
 * an asynchronous `Originate` through the Manager Interface dials the callee; once answered, the
 * call runs the outbound context (`AMD()` when asked, then `AGI(agi://…/outbound/<session>)`, where
 * agi-server.ts starts the plan). The `OriginateResponse` event tells how the dial went: a call
 * nobody answered ends there, through the outbound core's `dialResult`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AmiConfig } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { AmiClient, AmiError, type AmiMessage } from './ami-client.ts';

/** Originates a second when AMI_CALLS_PER_SECOND is not set. */
export const DEFAULT_AMI_CALLS_PER_SECOND = 5;

/** How the dial went, in the report's words. */
export type OriginateOutcome = 'answer' | 'busy' | 'no_answer' | 'failed';

/**
 * OriginateResponse's `Reason` (main/pbx.c, pbx_dial_reason: the control frame that ended the
 * dial): 4 answered, 5 busy, 3 rang out, 8 congestion, 1 hung up, 0 any other failure. A dial that
 * timed out while ringing can end with 0 (no cause was given): past the ring timeout, that is no answer.
 */
export function originateOutcome(response: string | undefined, reason: number, elapsedMs: number, ringTimeoutMs: number): OriginateOutcome {
  if (response?.toLowerCase() === 'success') return 'answer';
  if (reason === 5) return 'busy';
  if (reason === 3) return 'no_answer';
  if (reason === 0 && elapsedMs >= ringTimeoutMs - 500) return 'no_answer';
  return 'failed';
}

/** AMD()'s AMDSTATUS as the plan's `answered_by` (app_amd.c: HUMAN, MACHINE, NOTSURE, HANGUP). */
export function answeredByOfAmd(status: string | undefined): 'human' | 'machine' | 'unknown' {
  switch (status?.trim().toUpperCase()) {
    case 'HUMAN':
      return 'human';
    case 'MACHINE':
      return 'machine';
    default:
      return 'unknown';
  }
}

export interface OriginateCall {
  session_id: string;
  /** The number the callee sees (E.164). */
  from: string;
  to: string;
  machine_detection: boolean;
  ring_timeout_s: number;
}

/** Told once per call: how its dial went. */
export type OriginateListener = (sessionId: string, outcome: OriginateOutcome) => Promise<void>;

/** The manager's failures as the API's answers (docs/errors.md): 422, as the other providers' refusals of the settings. */
export function amiAppError(error: AmiError): AppError {
  return new AppError(422, error.code, undefined, error.message);
}

export class AmiDialer {
  readonly client: AmiClient;
  /** Originates sent by this instance, by ActionID, until their OriginateResponse. */
  private readonly pending = new Map<string, { sessionId: string; sentAt: number; ringTimeoutMs: number }>();

  constructor(
    readonly config: AmiConfig,
    private readonly onOutcome: OriginateListener,
    private readonly log: Pick<FastifyBaseLogger, 'warn' | 'error' | 'info'>,
  ) {
    this.client = new AmiClient({ host: config.host, port: config.port, username: config.username, secret: config.secret });
    this.client.on('event', (event) => void this.onEvent(event));
    this.client.on('disconnected', (error) => this.log.warn({ cause: error.message }, 'Asterisk manager connection lost; reconnecting'));
  }

  /** The channel the callee is dialled on. */
  channelOf(to: string): string {
    return this.config.channel.replaceAll('{number}', to);
  }

  /**
   * Sends the Originate; answers once the manager has queued it. An unreachable manager, a refused
   * login, or an Originate the manager refuses (no such context, a bad channel) throw an AppError.
   */
  async place(call: OriginateCall): Promise<{ provider_call_id: string }> {
    const actionId = `voxplan-originate-${call.session_id}`;
    const ringTimeoutMs = call.ring_timeout_s * 1000;
    // Listened for before it is sent: a dial that fails at once may be told before the action's answer.
    this.pending.set(actionId, { sessionId: call.session_id, sentAt: Date.now(), ringTimeoutMs });
    let answer: AmiMessage;
    try {
      answer = await this.client.action(
        {
          Action: 'Originate',
          Channel: this.channelOf(call.to),
          Context: this.config.context,
          Exten: 's',
          Priority: 1,
          Timeout: ringTimeoutMs,
          CallerID: call.from,
          Async: 'true',
          // The callee's channel takes the session's id as its own: the report's provider call id, and what the PBX's logs show.
          ChannelId: call.session_id,
          Variable: [`VOXPLAN_SESSION=${call.session_id}`, `VOXPLAN_AMD=${call.machine_detection ? 'yes' : 'no'}`],
        },
        { actionId },
      );
    } catch (error) {
      this.pending.delete(actionId);
      if (error instanceof AmiError) throw amiAppError(error);
      throw error;
    }
    if (answer.response?.toLowerCase() !== 'success') {
      this.pending.delete(actionId);
      throw new AppError(422, 'ami_originate_refused', undefined, `the Asterisk manager refused the call: ${answer.message ?? 'no reason given'}`);
    }
    return { provider_call_id: call.session_id };
  }

  private async onEvent(event: AmiMessage): Promise<void> {
    if (event.event?.toLowerCase() !== 'originateresponse' || event.actionid === undefined) return;
    const sent = this.pending.get(event.actionid);
    if (!sent) return;
    this.pending.delete(event.actionid);
    const outcome = originateOutcome(event.response, Number(event.reason ?? 0), Date.now() - sent.sentAt, sent.ringTimeoutMs);
    try {
      await this.onOutcome(sent.sessionId, outcome);
    } catch (error) {
      this.log.error({ err: error, session_id: sent.sessionId, outcome }, 'the outcome of an Asterisk call could not be stored');
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
