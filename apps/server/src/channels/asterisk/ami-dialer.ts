/**
 * Calls the server places on Asterisk (docs/channels-asterisk.md, "Calls placed by the server"):
 * an asynchronous `Originate` through the Manager Interface dials the callee; once answered, the
 * call runs the outbound context (`AMD()` when asked, then `AGI(agi://…/outbound/<session>)`, where
 * agi-server.ts starts the plan). The `OriginateResponse` event tells how the dial went: a call
 * nobody answered ends there, through the outbound core's `dialResult`.
 *
 * Asterisk sends that event to every manager session that reads call events (manager.c,
 * fast_originate: ast_manager_event_multichan(EVENT_FLAG_CALL, "OriginateResponse", …)), not only
 * to the one that sent the Originate. So an instance that dies between the Originate and its
 * response does not take the outcome with it: every other instance connected to the manager hears
 * it too, and after a grace (the sender, alive, has told it by then) applies it to a call still
 * ringing (docs/channels-asterisk.md, "An instance that stops mid-dial").
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

/**
 * An OriginateResponse of a call another instance placed, told after `FOREIGN_ORIGINATE_GRACE_MS`:
 * the listener decides from the stored call (still ringing?) and its ring timeout.
 */
export type ForeignOriginateListener = (sessionId: string, response: { response: string | undefined; reason: number; heardAt: number }) => Promise<void>;

/** Every Originate of this server names its session in its ActionID. */
const ORIGINATE_ACTION_PREFIX = 'voxplan-originate-';

/** How long an instance leaves another's OriginateResponse to the instance that sent it. */
export const FOREIGN_ORIGINATE_GRACE_MS = 3000;

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
    private readonly onForeign?: ForeignOriginateListener,
    private readonly foreignGraceMs = FOREIGN_ORIGINATE_GRACE_MS,
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
    const actionId = `${ORIGINATE_ACTION_PREFIX}${call.session_id}`;
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
    if (!sent) {
      if (event.actionid.startsWith(ORIGINATE_ACTION_PREFIX)) this.heardForeign(event.actionid.slice(ORIGINATE_ACTION_PREFIX.length), event);
      return;
    }
    this.pending.delete(event.actionid);
    const outcome = originateOutcome(event.response, Number(event.reason ?? 0), Date.now() - sent.sentAt, sent.ringTimeoutMs);
    try {
      await this.onOutcome(sent.sessionId, outcome);
    } catch (error) {
      this.log.error({ err: error, session_id: sent.sessionId, outcome }, 'the outcome of an Asterisk call could not be stored');
    }
  }

  /** Another instance's call (or one this instance placed before a restart): left to its sender for a grace, then told. */
  private heardForeign(sessionId: string, event: AmiMessage): void {
    const listener = this.onForeign;
    if (!listener) return;
    const response = { response: event.response, reason: Number(event.reason ?? 0), heardAt: Date.now() };
    setTimeout(() => {
      listener(sessionId, response).catch((error: unknown) => this.log.error({ err: error, session_id: sessionId }, 'the outcome of an Asterisk call another instance placed could not be stored'));
    }, this.foreignGraceMs).unref();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
