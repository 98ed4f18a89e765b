/**
 * The interpreter: a session and an event in, the new session and channel-neutral actions out.
 * It knows no block by name; each node carries its runtime (runtime.ts). The input session is
 * never changed: a turn works on a copy, so a host can retry a turn that failed to be stored.
 */
import type { EngineEvent } from './events.ts';
import { isoTime } from './iso-time.ts';
import { analyseRecording } from './recording.ts';
import { buildReport } from './report.ts';
import type { CompiledPlan, EnginePorts } from './runtime.ts';
import { type DialStatus, type Session, type SessionInit, copySession, currentFrame, sessionFormatVersion } from './session.ts';
import type { TurnResult } from './turn-end.ts';
import { TurnState } from './turn-runner.ts';
import { type Value, isAssignableVariableName, normaliseValue } from './values.ts';

export { dispositionOf, type TurnResult } from './turn-end.ts';

export function createSession(init: SessionInit, plan: { version: number; name: string } | undefined, now: Date): Session {
  const variables: Record<string, Value> = {};
  for (const [name, value] of Object.entries(init.variables ?? {})) if (isAssignableVariableName(name)) variables[name] = normaliseValue(value);
  return {
    format_version: sessionFormatVersion,
    id: init.id,
    tenant_id: init.tenant_id,
    plan_id: init.plan_id,
    plan_version: plan?.version ?? init.plan_version ?? 0,
    plan_name: plan?.name ?? '',
    call_stack: [],
    channel: init.channel,
    provider: init.provider,
    direction: init.direction ?? 'inbound',
    caller: init.caller,
    called: init.called,
    source_ip: init.source_ip ?? null,
    status: 'new',
    node_id: null,
    node_state: null,
    variables,
    last_digits: '',
    last_input: '',
    protocol: null,
    path: [],
    digits: [],
    transcript: [],
    turns: 0,
    steps: 0,
    same_node_streak: 0,
    ...(init.language !== undefined && { language: init.language }),
    ...(init.schedule_clock && { schedule_clock: { offset_ms: init.schedule_clock.offset_ms, holiday: init.schedule_clock.holiday } }),
    ...(init.contact_key !== undefined && { contact_key: init.contact_key }),
    started_at: isoTime(now),
    ended_at: null,
    hangup_cause: null,
    disposition: null,
    dial_status: null,
    failure: null,
    recording: null,
  };
}

export interface StartOptions {
  /**
   * The block a test run begins at instead of the one the start block leads to (the simulator's
   * "test from this block"). The start block still does its work (the protocol; a voice call it
   * rejects is rejected) but is not entered in the path; a block not in the plan fails the session
   * with `node_not_found`.
   */
  startNodeId?: string;
  /**
   * An outbound call nobody answered: the session ends at once with this dial status and runs no
   * block, so that the call has its report like any other (docs/outbound.md).
   */
  unanswered?: Exclude<DialStatus, 'answer'>;
}

/**
 * Starts a session on the plan's latest published version (or `init.plan_version`) and runs it to
 * its first wait. Not an async function: a plan loader that answers at once (from its cache) and
 * blocks that do too leave the start one promise, without an await's microtasks.
 */
export function startSession(init: SessionInit, ports: EnginePorts, options: StartOptions = {}): Promise<TurnResult> {
  try {
    const plan =
      init.plan_version === undefined ? ports.plans.loadPublished(init.tenant_id, init.plan_id, init.contact_key) : ports.plans.load(init.tenant_id, init.plan_id, init.plan_version);
    if (plan instanceof Promise) return plan.then((loaded) => startOn(init, ports, options, loaded));
    return Promise.resolve(startOn(init, ports, options, plan));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

function startOn(init: SessionInit, ports: EnginePorts, options: StartOptions, plan: CompiledPlan | undefined): TurnResult | Promise<TurnResult> {
  const session = createSession(init, plan, ports.clock.now());
  if (options.unanswered !== undefined) return endUnanswered(session, options.unanswered);
  return runTurn(session, { type: 'start' }, ports, plan, options.startNodeId);
}

/**
 * The session of a call nobody answered, ended where it began: `missed`, as the outbound core
 * reports such a call (docs/outbound.md); the dial status tells what happened, a busy line also
 * as the hang-up cause.
 */
function endUnanswered(session: Session, dialStatus: Exclude<DialStatus, 'answer'>): TurnResult {
  session.status = 'ended';
  session.ended_at = session.started_at;
  session.dial_status = dialStatus;
  session.disposition = 'missed';
  session.hangup_cause = dialStatus === 'busy' ? 'busy' : null;
  return { session, actions: [], report: buildReport(session) };
}

/** Not an async function, for the reason startSession gives; a throw is a rejection all the same. */
export function handleEvent(session: Session, event: EngineEvent, ports: EnginePorts): Promise<TurnResult> {
  try {
    return Promise.resolve(handleEventNow(session, event, ports));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

function handleEventNow(session: Session, event: EngineEvent, ports: EnginePorts): TurnResult | Promise<TurnResult> {
  if (session.status === 'ended') {
    if (event.type === 'recording_ready' && session.recording?.status === 'recording') {
      const copy = copySession(session);
      copy.turns++;
      copy.recording = { ...copy.recording!, url: event.url, duration_s: event.duration_s };
      const analysed = analyseRecording(copy, ports);
      if (analysed === undefined) return { session: copy, actions: [], report: buildReport(copy) };
      return analysed.then(() => ({ session: copy, actions: [], report: buildReport(copy) }));
    }
    if (event.type === 'recording_failed' && session.recording?.status === 'recording') {
      const copy = copySession(session);
      copy.turns++;
      copy.recording = { ...copy.recording!, status: 'failed', error: event.error };
      return { session: copy, actions: [], report: buildReport(copy) };
    }
    return { session, actions: [], ignored: true };
  }
  if ((event.type === 'start') !== (session.status === 'new')) return { session, actions: [], ignored: true };
  // An expiry closes the session whether or not its plan still loads: no block runs.
  if (event.type === 'expire') return runTurn(session, event, ports, undefined);
  const frame = currentFrame(session);
  const plan = ports.plans.load(session.tenant_id, frame.plan_id, frame.plan_version);
  if (plan instanceof Promise) return plan.then((loaded) => runTurn(session, event, ports, loaded));
  return runTurn(session, event, ports, plan);
}

/**
 * A turn answers without a promise of its own when no block waits on one (most turns): each
 * async step of a turn cost a promise and a microtask, a tenth of bench:engine's turn. Its
 * callers are async, so a throw here still rejects their promise.
 */
function runTurn(input: Session, event: EngineEvent, ports: EnginePorts, plan: CompiledPlan | undefined, startNodeId?: string): TurnResult | Promise<TurnResult> {
  const turn = new TurnState(copySession(input, false), ports, plan, startNodeId, input.turn_path);
  turn.session.turns++;
  // Once per turn: the window moves only with the customer's messages, which come as turns of their own.
  if (ports.customerWindow && input.channel === 'chat' && event.type !== 'expire' && event.type !== 'hangup') {
    return ports.customerWindow.isOpen(input, turn.now).then((open) => {
      turn.customerWindowOpen = open;
      return handleTurn(turn, input, event, plan);
    });
  }
  return handleTurn(turn, input, event, plan);
}

function handleTurn(turn: TurnState, input: Session, event: EngineEvent, plan: CompiledPlan | undefined): TurnResult | Promise<TurnResult> {
  if (!plan && event.type !== 'expire') {
    const frame = currentFrame(input);
    turn.fail('plan_not_found', `plan ${frame.plan_id} version ${frame.plan_version} is not available`, null);
    return turn.result();
  }
  const handled = turn.handle(event);
  if (handled instanceof Promise) return handled.then((applies) => (applies ? turn.result() : ignoredTurn(input)));
  return handled ? turn.result() : ignoredTurn(input);
}

function ignoredTurn(input: Session): TurnResult {
  return { session: input, actions: [], ignored: true };
}
