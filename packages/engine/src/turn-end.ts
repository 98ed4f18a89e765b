/**
 * The end of a turn's session: a hang-up, a failure, an expiry, with its disposition; the turn's
 * result with its report, once a recording's analyses are done; a block's error made its failure.
 */
import type { Action } from './actions.ts';
import { analyseRecording } from './recording.ts';
import { type CallReport, buildReport } from './report.ts';
import { type Outcome, type RuntimeNode, blockReference } from './runtime.ts';
import { type Disposition, type FailureCode, type HangupCause, type Session, currentFrame } from './session.ts';
import { TurnPath } from './turn-path.ts';

export interface TurnResult {
  session: Session;
  actions: Action[];
  /** Set when the session ended in this turn, or when a recording's analysis completed after it ended. */
  report?: CallReport;
  /** The event does not apply to the session as it stands; the session is returned unchanged. */
  ignored?: boolean;
}

export class TurnEnd extends TurnPath {
  finish(cause: HangupCause, reject = false): void {
    if (this.ended) return;
    const session = this.session;
    if (cause !== 'caller_hangup') {
      // A chat a person resolved was told goodbye by its queue (the closing message) or its desk:
      // the plan's end message would be a second one (docs/handoff.md, "Outcomes").
      if (session.channel === 'chat' && cause !== 'resolved') {
        const text = this.render(cause === 'session_timeout' ? this.plan.chatTimeoutText : this.plan.hangupChatMessage).trim();
        if (text !== '') this.emit({ type: 'reply', text });
      }
      this.emit(reject ? { type: 'hangup', cause, reject: true } : { type: 'hangup', cause });
    }
    this.close(cause, dispositionOf(session, cause));
  }

  /**
   * A chat customer who leaves while waiting for a person cancels the hand-off, as a caller who
   * hangs up while the destination rings (Asterisk's `CANCEL`). Calls learn that from their dial's
   * own result.
   */
  protected leaveWaitForPerson(): void {
    const session = this.session;
    if (session.channel !== 'chat' || session.node_id === null) return;
    if (this.plan.nodes.get(session.node_id)?.type === 'destination') session.dial_status = 'cancel';
  }

  fail(code: FailureCode, message: string, nodeId: string | null): void {
    if (this.ended) return;
    const session = this.session;
    session.failure = { code, message, plan_id: this.plan?.id ?? currentFrame(session).plan_id, node_id: nodeId };
    this.emit({ type: 'hangup', cause: 'engine_error' });
    // A session that reached its destination stays routed: that is what the caller got.
    this.close('engine_error', session.dial_status === 'answer' ? 'routed' : 'failed');
  }

  /** `endedAt`: now, but for an expiry, which ends at the session's last sign of life. */
  protected close(cause: HangupCause, disposition: Disposition, endedAt = this.nowText): void {
    const session = this.session;
    this.ended = true;
    session.status = 'ended';
    session.ended_at = endedAt;
    session.hangup_cause = cause;
    session.disposition = disposition;
    session.node_state = null;
  }

  result(): TurnResult | Promise<TurnResult> {
    if (!this.ended) return { session: this.session, actions: this.actions };
    // Only a recording has analyses to wait for.
    if (this.session.recording === null) return { session: this.session, actions: this.actions, report: buildReport(this.session) };
    const analysed = analyseRecording(this.session, this.ports);
    if (analysed === undefined) return { session: this.session, actions: this.actions, report: buildReport(this.session) };
    return analysed.then(() => ({ session: this.session, actions: this.actions, report: buildReport(this.session) }));
  }
}

export function blockError(node: RuntimeNode, error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  return { fail: 'block_error', message: `${blockReference(node)} failed: ${message}` };
}

/**
 * How a session that ended counts (docs/handoff.md, "Outcomes"): `routed` once its last
 * destination answered; `missed` for a chat whose last hand-off nobody took (busy: nobody online;
 * no_answer: nobody in time), whatever came after; `abandoned` when the caller or customer left;
 * else `retained`, the plan served it alone.
 */
export function dispositionOf(session: Pick<Session, 'channel' | 'dial_status'>, cause: HangupCause): Disposition {
  if (session.dial_status === 'answer') return 'routed';
  if (session.channel === 'chat' && (session.dial_status === 'busy' || session.dial_status === 'no_answer')) return 'missed';
  return cause === 'caller_hangup' || cause === 'session_timeout' ? 'abandoned' : 'retained';
}
