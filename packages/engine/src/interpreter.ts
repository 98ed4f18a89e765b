/**
 * The interpreter: a session and an event in, the new session and channel-neutral actions out.
 * It knows no block by name; each node carries its runtime (runtime.ts). The input session is
 * never changed: a turn works on a copy, so a host can retry a turn that failed to be stored.
 */
import { type Action, defaultSpeechLanguage, type ReplyOption } from './actions.ts';
import type { EngineEvent } from './events.ts';
import type { Scope } from './expression.ts';
import { isoTime } from './iso-time.ts';
import { engineLimits } from './limits.ts';
import type { EnginePorts, TurnObserver } from './ports.ts';
import { analyseRecording, isSampled } from './recording.ts';
import { type CallReport, buildReport } from './report.ts';
import { type CompiledPlan, type Outcome, type RecordingStart, type RuntimeNode, type Turn, blockReference } from './runtime.ts';
import {
  type DialStatus,
  type Disposition,
  type FailureCode,
  type HangupCause,
  type JsonValue,
  type PathEntry,
  type Session,
  type SessionInit,
  copySession,
  currentFrame,
  sessionFormatVersion,
} from './session.ts';
import type { Template } from './template.ts';
import { type BuiltinVariable, type Value, isAssignableVariableName, normaliseValue } from './values.ts';

export interface TurnResult {
  session: Session;
  actions: Action[];
  /** Set when the session ended in this turn, or when a recording's analysis completed after it ended. */
  report?: CallReport;
  /** The event does not apply to the session as it stands; the session is returned unchanged. */
  ignored?: boolean;
}

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

/** Starts a session on the plan's latest published version (or `init.plan_version`) and runs it to its first wait. */
export async function startSession(init: SessionInit, ports: EnginePorts, options: StartOptions = {}): Promise<TurnResult> {
  const plan =
    init.plan_version === undefined
      ? await ports.plans.loadPublished(init.tenant_id, init.plan_id, init.contact_key)
      : await ports.plans.load(init.tenant_id, init.plan_id, init.plan_version);
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

export async function handleEvent(session: Session, event: EngineEvent, ports: EnginePorts): Promise<TurnResult> {
  if (session.status === 'ended') {
    if (event.type === 'recording_ready' && session.recording?.status === 'recording') {
      const copy = copySession(session);
      copy.turns++;
      copy.recording = { ...copy.recording!, url: event.url, duration_s: event.duration_s };
      await analyseRecording(copy, ports);
      return { session: copy, actions: [], report: buildReport(copy) };
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
  return runTurn(session, event, ports, await ports.plans.load(session.tenant_id, frame.plan_id, frame.plan_version));
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

const applied = (): true => true;

class TurnState implements Turn {
  readonly actions: Action[] = [];
  readonly now: Date;
  readonly schedule: { instant: Date; holiday: boolean };
  readonly scope: Scope;
  private readonly nowText: string;
  private ended = false;
  /** Free-form messages may reach the customer (CustomerWindow); outside, a block's replies are withheld. */
  customerWindowOpen = true;
  /** A reply of the block running now was withheld: the block takes its error exit where it has one. */
  private withheld = false;
  /** Whether this turn's first block has begun Session.turn_path. */
  private pathMarked = false;
  /**
   * The path's entries from this index on are this turn's own: the ones before it are shared with
   * the input session (a shallow copy), which a turn never changes, so those are replaced, never changed.
   */
  private readonly firstOwnEntry: number;
  /** Read once: a field is cheaper to test on every block than a missing property of the ports. */
  private readonly observer: TurnObserver | undefined;
  plan: CompiledPlan;

  constructor(
    readonly session: Session,
    readonly ports: EnginePorts,
    plan: CompiledPlan | undefined,
    /** Where a `start` begins when not at the start block (StartOptions). */
    private readonly startNodeId: string | undefined,
    /**
     * The marks the last turn left (Session.turn_path), read from the input session: the marks
     * are of one turn, so `session` (its copy) has none; a hang-up reads these, any turn begins its own.
     */
    private readonly lastTurnPath: Session['turn_path'],
  ) {
    // A turn without a plan only records its failure; every other member needs `plan`.
    this.plan = plan as CompiledPlan;
    this.observer = ports.observer;
    this.now = ports.clock.now();
    const clock = session.schedule_clock;
    this.schedule = clock ? { instant: new Date(this.now.getTime() + clock.offset_ms), holiday: clock.holiday } : { instant: this.now, holiday: false };
    this.nowText = isoTime(this.now);
    this.scope = (name) => this.lookup(name);
    this.firstOwnEntry = session.path.length;
  }

  get state(): JsonValue | null {
    return this.session.node_state;
  }

  /** `false` when the event does not apply to the session as it stands. */
  handle(event: EngineEvent): boolean | Promise<boolean> {
    const session = this.session;
    switch (event.type) {
      case 'start': {
        const start = this.plan.nodes.get(this.plan.startNodeId);
        if (!start) {
          this.fail('node_not_found', `start node ${this.plan.startNodeId} is missing`, this.plan.startNodeId);
          return true;
        }
        const first = this.startNodeId === undefined ? start : this.plan.nodes.get(this.startNodeId);
        if (!first) {
          this.fail('node_not_found', `block ${this.startNodeId} to start at is not in plan ${this.plan.id}`, this.startNodeId ?? null);
          return true;
        }
        if (first !== start) return this.startAt(start, first);
        const outcome = this.enter(first);
        const done = outcome instanceof Promise ? this.advanceAfter(first, outcome) : this.advance(first, this.afterBlock(first, outcome));
        return done instanceof Promise ? done.then(applied) : true;
      }
      case 'prompt_failed':
      case 'speech_unavailable': {
        // Between a turn's actions: the marks stay for the rest of that turn's actions.
        this.keepLastTurnPath();
        const node = this.blockOfAction(event.action);
        const code = event.type === 'prompt_failed' ? 'prompt_unplayable' : 'speech_engine_unavailable';
        session.failure ??= { code, message: event.message, plan_id: node?.plan_id ?? currentFrame(session).plan_id, node_id: node?.node_id ?? null };
        return true;
      }
      case 'answered_by':
        if (session.status === 'ended') return false;
        // Between turns: the marks of the last turn stay, as nothing of the plan ran.
        this.keepLastTurnPath();
        session.variables.answered_by = event.answered_by;
        return true;
      case 'hangup':
        if (event.actions_started !== undefined) this.forgetUnreached(event.actions_started);
        this.leaveWaitForPerson();
        this.finish('caller_hangup');
        return true;
      case 'expire':
        this.close('end_not_received', 'expired', event.at);
        return true;
      case 'undelivered':
        // Nobody was reached: the conversation never opened, as a call nobody answered.
        session.dial_status = 'failed';
        this.fail(event.code, event.message, session.node_id);
        return true;
      // Only once the call is over (handleEvent): a live session keeps recording.
      case 'recording_failed':
        return false;
      case 'recording_ready':
        if (!session.recording) return false;
        session.recording = { ...session.recording, url: event.url, duration_s: event.duration_s };
        return true;
      case 'timeout':
        if (session.channel === 'chat') {
          this.leaveWaitForPerson();
          this.finish('session_timeout');
          return true;
        }
        break;
      default:
        break;
    }
    const node = session.node_id === null ? undefined : this.plan.nodes.get(session.node_id);
    if (!node?.runtime.resume) return false;
    let outcome: Outcome | undefined;
    try {
      const resumed = node.runtime.resume(this, node, event);
      if (resumed instanceof Promise) return this.resumeAfter(node, resumed);
      outcome = resumed;
    } catch (error) {
      outcome = blockError(node, error);
    }
    if (outcome === undefined) return false;
    const done = this.advance(node, this.afterBlock(node, outcome));
    return done instanceof Promise ? done.then(applied) : true;
  }

  /**
   * A test run from a chosen block (StartOptions.startNodeId): the start block sets the session
   * up as on any start, out of the path, so that the run shows the chosen block first. Only its
   * way out is replaced; an end or a failure stands.
   */
  private async startAt(start: RuntimeNode, first: RuntimeNode): Promise<boolean> {
    const setUp = this.run(start);
    const outcome = setUp instanceof Promise ? await setUp : setUp;
    if (!('exit' in outcome)) {
      await this.advance(start, outcome);
      return true;
    }
    const entered = this.enter(first);
    await this.advance(first, this.afterBlock(first, entered instanceof Promise ? await entered : entered));
    return true;
  }

  private async resumeAfter(node: RuntimeNode, resumed: Promise<Outcome | undefined>): Promise<boolean> {
    let outcome: Outcome | undefined;
    try {
      outcome = await resumed;
    } catch (error) {
      outcome = blockError(node, error);
    }
    if (outcome === undefined) return false;
    await this.advance(node, this.afterBlock(node, outcome));
    return true;
  }

  /** The rest of the turn after a block that answered with a promise. */
  private async advanceAfter(node: RuntimeNode, entered: Promise<Outcome>): Promise<void> {
    await this.advance(node, this.afterBlock(node, await entered));
  }

  /**
   * Follows outcomes from block to block until one waits or the session ends; a promise only
   * when a block answered with one.
   */
  private advance(node: RuntimeNode, outcome: Outcome): Promise<void> | void {
    for (;;) {
      if ('wait' in outcome) {
        this.session.status = 'waiting';
        return;
      }
      if ('fail' in outcome) return this.fail(outcome.fail, outcome.message, node.id);
      if ('end' in outcome) return this.finish(outcome.end, outcome.reject === true);
      let next: RuntimeNode | undefined;
      if ('enterPlan' in outcome) {
        const plan = outcome.enterPlan;
        this.session.call_stack.push({ plan_id: plan.id, plan_version: plan.version, plan_name: plan.name });
        this.plan = plan;
        next = plan.nodes.get(plan.startNodeId);
        if (!next) return this.fail('node_not_found', `plan ${plan.id} has no start node`, null);
      } else {
        this.markExit(outcome.exit);
        const target = node.targets.get(outcome.exit);
        // An exit left unconnected ends the session the way `hangup` does (blocks.md).
        if (target === undefined) return this.finish('normal_clearing');
        next = this.plan.nodes.get(target);
        if (!next) return this.fail('node_not_found', `exit ${outcome.exit} leads to a missing node ${target}`, node.id);
      }
      node = next;
      const entered = this.enter(node);
      // Most blocks answer at once; awaiting only real promises spares a microtask per block.
      if (entered instanceof Promise) return this.advanceAfter(node, entered);
      outcome = this.afterBlock(node, entered);
    }
  }

  /**
   * A block whose reply was withheld outside the customer window leaves by its error exit, if it
   * has one, rather than going on (or waiting for an answer) as if the customer had read it; its
   * path entry already names the reason (docs/channels-whatsapp.md, "The 24-hour customer service window").
   */
  private afterBlock(node: RuntimeNode, outcome: Outcome): Outcome {
    if (!this.withheld) return outcome;
    this.withheld = false;
    if (node.errorExit === undefined || !('exit' in outcome || 'wait' in outcome)) return outcome;
    if ('wait' in outcome) this.session.node_state = null;
    return { exit: node.errorExit };
  }

  private enter(node: RuntimeNode): Outcome | Promise<Outcome> {
    const session = this.session;
    if (session.steps >= engineLimits.maxSteps) {
      return { fail: 'step_limit', message: `the session entered ${engineLimits.maxSteps} blocks; it is stopped to end a loop` };
    }
    const last = session.path.at(-1);
    const isSameNode = last !== undefined && last.node_id === node.id && last.plan_id === this.plan.id;
    session.same_node_streak = isSameNode ? session.same_node_streak + 1 : 1;
    if (session.same_node_streak >= engineLimits.maxSameNodeInARow) {
      return { fail: 'loop_limit', message: `${blockReference(node)} was entered ${engineLimits.maxSameNodeInARow} times in a row` };
    }
    session.steps++;
    session.node_id = node.id;
    session.node_state = null;
    const entry = { plan_id: this.plan.id, node_id: node.id, type: node.type, at: this.nowText, exit: null };
    session.path.push(entry);
    if (node.goal !== undefined && session.goal === undefined) session.goal = { name: node.goal, path_index: session.path.length - 1 };
    this.turnPath().actions.push(this.actions.length);
    this.observer?.entered(entry);
    return this.run(node);
  }

  /** The block's own work on arrival, its errors made the block's failure. */
  private run(node: RuntimeNode): Outcome | Promise<Outcome> {
    try {
      const outcome = node.runtime.enter(this, node);
      return outcome instanceof Promise ? outcome.catch((error: unknown) => blockError(node, error)) : outcome;
    } catch (error) {
      return blockError(node, error);
    }
  }

  /** The last turn's marks, copied: they are the input session's, which a turn never changes. */
  private keepLastTurnPath(): void {
    const marks = this.lastTurnPath;
    if (marks) this.session.turn_path = { start: marks.start, actions: marks.actions.slice() };
  }

  /** This turn's marks in the path (Session.turn_path), begun on the turn's first block. */
  private turnPath(): { start: number; actions: number[] } {
    if (!this.pathMarked) {
      this.pathMarked = true;
      this.session.turn_path = { start: this.session.path.length - 1, actions: [] };
    }
    return this.session.turn_path!;
  }

  /** The block of the last turn that made its `action`-th action. */
  private blockOfAction(action: number): PathEntry | undefined {
    const marks = this.lastTurnPath;
    if (!marks) return undefined;
    let found: PathEntry | undefined;
    marks.actions.forEach((count, index) => {
      if (count <= action) found = this.session.path[marks.start + index];
    });
    return found;
  }

  /**
   * The caller hung up having started only `started` of the last turn's actions: the blocks of
   * that turn entered after them never ran for the caller, so the path ends at the block the
   * caller was in (which it left by no exit), and a recording whose block was not reached was
   * never made.
   */
  private forgetUnreached(started: number): void {
    const session = this.session;
    const marks = this.lastTurnPath;
    if (!marks) return;
    const firstUnreached = marks.actions.findIndex((count) => count >= started && count > 0);
    if (firstUnreached === -1) return;
    const cut = marks.start + firstUnreached;
    if (cut <= 0 || cut >= session.path.length) return;
    const dropped = session.path.slice(cut);
    session.path = session.path.slice(0, cut);
    const last = session.path[cut - 1]!;
    session.path[cut - 1] = { ...last, exit: null };
    session.node_id = last.node_id;
    // A goal block the caller never reached was not reached.
    if (session.goal && session.goal.path_index >= cut) delete session.goal;
    const recording = session.recording;
    if (recording && dropped.some((entry) => entry.plan_id === recording.plan_id && entry.node_id === recording.node_id)) session.recording = null;
  }

  private markExit(exit: string): void {
    const path = this.session.path;
    const last = path.at(-1);
    if (!last) return;
    if (path.length > this.firstOwnEntry) {
      // Made in this turn: no other session holds it, so it takes its exit in place.
      last.exit = exit;
      this.observer?.exited(last);
      return;
    }
    // Two literals rather than a conditional spread (a temporary object and a generic copy of it).
    const entry: PathEntry =
      last.reason === undefined
        ? { plan_id: last.plan_id, node_id: last.node_id, type: last.type, at: last.at, exit }
        : { plan_id: last.plan_id, node_id: last.node_id, type: last.type, at: last.at, exit, reason: last.reason };
    path[path.length - 1] = entry;
    this.observer?.exited(entry);
  }

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
  private leaveWaitForPerson(): void {
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
  private close(cause: HangupCause, disposition: Disposition, endedAt = this.nowText): void {
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
    return this.analysedResult();
  }

  private async analysedResult(): Promise<TurnResult> {
    await analyseRecording(this.session, this.ports);
    return { session: this.session, actions: this.actions, report: buildReport(this.session) };
  }

  /* Turn, as blocks see it. */

  private lookup(name: string): Value {
    const session = this.session;
    switch (name) {
      case 'caller':
        return session.caller;
      case 'called':
        return session.called;
      case 'channel':
        return session.channel;
      case 'protocol':
        return session.protocol ?? '';
      case 'session_id':
        return session.id;
      case 'plan_id':
        return currentFrame(session).plan_id;
      case 'tenant_id':
        return session.tenant_id;
      case 'last_digits':
        return session.last_digits;
      case 'last_input':
        return session.last_input;
      case 'now':
        return this.nowText;
      default:
        return Object.hasOwn(session.variables, name) ? (session.variables[name] ?? null) : null;
    }
  }

  speechLanguage(override?: string): string {
    return override || this.plan?.settings.language || this.session.language || defaultSpeechLanguage;
  }

  render(template: Template): string {
    return template.isStatic ? template.source : template.render(this.scope);
  }

  emit(given: Action): void {
    if (given.type === 'reply' && !this.customerWindowOpen) {
      // Never silently: the block's entry in the report names it, and the block may take its error exit.
      this.withheld = true;
      this.noteReason('outside_customer_window');
      return;
    }
    const action = given.type === 'say' || given.type === 'gather' ? this.spoken(given) : given;
    this.actions.push(action);
    this.observer?.action(action);
    if (action.type === 'say' || action.type === 'reply' || (action.type === 'template' && action.status === 'sent')) this.addTranscript('plan', action.text);
  }

  takeReplies(): Array<{ text: string; options?: ReplyOption[] }> {
    const taken: Array<{ text: string; options?: ReplyOption[] }> = [];
    this.actions.forEach((action, index) => {
      if (action.type !== 'reply' || action.sent) return;
      taken.push(action.options ? { text: action.text, options: action.options } : { text: action.text });
      this.actions[index] = { ...action, sent: true };
    });
    return taken;
  }

  noteReason(reason: string): void {
    const path = this.session.path;
    const last = path.at(-1);
    // Before any block (a chat's end message at a first turn's failure) there is no entry to name it on.
    if (!last) return;
    if (path.length > this.firstOwnEntry) last.reason = reason;
    else path[path.length - 1] = { ...last, reason };
  }

  /**
   * A prompt or a gather in its language: the block's, else the plan's, else the session's; a
   * prompt in the plan's own language gets the plan's voices (a voice speaks one language, so a
   * block in another one leaves each channel that language's default). A host that names no
   * language, for a plan that names none either, gets the actions as the blocks made them.
   */
  private spoken<A extends Extract<Action, { type: 'say' | 'gather' }>>(action: A): A {
    const settings = this.plan?.settings;
    const planLanguage = settings?.language || this.session.language;
    if (!planLanguage) return action;
    const language = action.language || planLanguage;
    if (action.type === 'gather' || !settings || language !== planLanguage) return action.language === language ? action : { ...action, language };
    const voices = { ...(settings.twilio_voice && { twilio: settings.twilio_voice }), ...(settings.tts_voice && { tts: settings.tts_voice }) };
    return { ...action, language, ...(Object.keys(voices).length > 0 && { voices }) };
  }

  private addTranscript(from: 'caller' | 'plan', text: string): void {
    const transcript = this.session.transcript;
    transcript.push({ from, text, at: this.nowText });
    if (transcript.length > engineLimits.maxTranscript) transcript.splice(0, transcript.length - engineLimits.maxTranscript);
  }

  setVariable(name: string, value: Value): boolean {
    if (!isAssignableVariableName(name)) return false;
    this.session.variables[name] = normaliseValue(value);
    return true;
  }

  variables(): Record<string, Value> {
    const session = this.session;
    // A literal rather than a loop over builtinVariables through lookup: its keyed stores on a
    // new object each time took 5 % of bench:engine. The type keeps it to every built-in, in their order.
    const builtins: Record<BuiltinVariable, Value> = {
      caller: session.caller,
      called: session.called,
      channel: session.channel,
      protocol: session.protocol ?? '',
      session_id: session.id,
      plan_id: currentFrame(session).plan_id,
      tenant_id: session.tenant_id,
      last_digits: session.last_digits,
      last_input: session.last_input,
      now: this.nowText,
    };
    return { ...session.variables, ...builtins };
  }

  setState(state: JsonValue | null): void {
    this.session.node_state = state;
  }

  recordDigits(digits: string): void {
    const session = this.session;
    session.last_digits = digits;
    if (session.digits.length < engineLimits.maxDigitEntries) {
      session.digits.push({ plan_id: this.plan.id, node_id: session.node_id ?? '', digits, at: this.nowText });
    }
  }

  recordInput(text: string): void {
    this.session.last_input = text;
    this.addTranscript('caller', text);
  }

  setProtocol(protocol: string): void {
    this.session.protocol = protocol;
  }

  setDialStatus(status: DialStatus): void {
    this.session.dial_status = status;
  }

  startRecording(recording: RecordingStart): void {
    const session = this.session;
    // The first recording block wins: the call is recorded once, from that point on.
    if (session.recording) return;
    session.recording = {
      plan_id: this.plan.id,
      node_id: session.node_id ?? '',
      format: recording.format,
      analyses: recording.analyses,
      min_duration_s: recording.min_duration_s,
      anonymization: recording.anonymization,
      selected: isSampled(session.id, recording.percentage),
      status: 'recording',
      url: null,
      duration_s: null,
      results: null,
      error: null,
    };
  }
}

function blockError(node: RuntimeNode, error: unknown): Outcome {
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
