/** The call report a session becomes when it ends (spec section 3, "Call report"). */
import type {
  Channel,
  DialStatus,
  DigitsEntry,
  Direction,
  Disposition,
  HangupCause,
  PathEntry,
  Provider,
  RecordingState,
  Session,
  SessionFailure,
} from './session.ts';
import type { Value } from './values.ts';

export interface CallReport {
  session_id: string;
  tenant_id: number;
  plan_id: number;
  plan_name: string;
  plan_version: number;
  channel: Channel;
  provider: Provider;
  direction: Direction;
  caller: string;
  called: string;
  source_ip: string | null;
  protocol: string | null;
  /** Where the session was when it ended: the drop-off statistics count by this. */
  last_node: { plan_id: number; node_id: string; type: string } | null;
  nodes: PathEntry[];
  pressed_digits: DigitsEntry[];
  hangup_cause: HangupCause | null;
  disposition: Disposition | null;
  dial_status: DialStatus | null;
  failure: SessionFailure | null;
  started_at: string;
  ended_at: string | null;
  duration_s: number | null;
  recording: Pick<RecordingState, 'format' | 'url' | 'duration_s' | 'status' | 'results' | 'error'> | null;
  variables: Record<string, Value>;
}

export function buildReport(session: Session): CallReport {
  const last = session.path.at(-1);
  const recording = session.recording;
  return {
    session_id: session.id,
    tenant_id: session.tenant_id,
    plan_id: session.plan_id,
    plan_name: session.plan_name,
    plan_version: session.plan_version,
    channel: session.channel,
    provider: session.provider,
    direction: session.direction,
    caller: session.caller,
    called: session.called,
    source_ip: session.source_ip,
    protocol: session.protocol,
    last_node: last ? { plan_id: last.plan_id, node_id: last.node_id, type: last.type } : null,
    nodes: session.path,
    pressed_digits: session.digits,
    hangup_cause: session.hangup_cause,
    disposition: session.disposition,
    dial_status: session.dial_status,
    failure: session.failure,
    started_at: session.started_at,
    ended_at: session.ended_at,
    duration_s: session.ended_at === null ? null : Math.max(0, Math.round((Date.parse(session.ended_at) - Date.parse(session.started_at)) / 1000)),
    recording: recording && {
      format: recording.format,
      url: recording.url,
      duration_s: recording.duration_s,
      status: recording.status,
      results: recording.results,
      error: recording.error,
    },
    variables: session.variables,
  };
}
