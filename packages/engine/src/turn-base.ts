/**
 * A turn's state, and the turn as blocks see it (runtime.ts, `Turn`): the scope their templates
 * read, the actions they emit, the variables, digits and recording they set. The interpreter's turn
 * (turn-runner.ts) builds on it: the path's marks (turn-path.ts), the end (turn-end.ts), the loop.
 * Each part extends the one before it rather than holding it, so that a turn stays one object:
 * blocks call its methods directly, with no hop per call on the engine's hottest path.
 */
import { type Action, defaultSpeechLanguage, type ReplyOption } from './actions.ts';
import type { Scope } from './expression.ts';
import { isoTime } from './iso-time.ts';
import { engineLimits } from './limits.ts';
import type { TurnObserver } from './ports.ts';
import { isSampled } from './recording.ts';
import type { CompiledPlan, EnginePorts, RecordingStart, Turn } from './runtime.ts';
import { type DialStatus, type JsonValue, type Session, currentFrame, newList } from './session.ts';
import type { Template } from './template.ts';
import { type BuiltinVariable, type Value, copyVariables, isAssignableVariableName, normaliseValue } from './values.ts';

export class TurnBase implements Turn {
  readonly actions: Action[] = newList();
  readonly now: Date;
  readonly schedule: { instant: Date; holiday: boolean };
  readonly scope: Scope;
  protected readonly nowText: string;
  protected ended = false;
  /** Free-form messages may reach the customer (CustomerWindow); outside, a block's replies are withheld. */
  customerWindowOpen = true;
  /** A reply of the block running now was withheld: the block takes its error exit where it has one. */
  protected withheld = false;
  /** Whether this turn's first block has begun Session.turn_path. */
  protected pathMarked = false;
  /**
   * The path's entries from this index on are this turn's own: the ones before it are shared with
   * the input session (a shallow copy), which a turn never changes, so those are replaced, never changed.
   */
  protected readonly firstOwnEntry: number;
  /** Read once: a field is cheaper to test on every block than a missing property of the ports. */
  protected readonly observer: TurnObserver | undefined;
  plan: CompiledPlan;

  constructor(
    readonly session: Session,
    readonly ports: EnginePorts,
    plan: CompiledPlan | undefined,
    /** Where a `start` begins when not at the start block (StartOptions). */
    protected readonly startNodeId: string | undefined,
    /**
     * The marks the last turn left (Session.turn_path), read from the input session: the marks
     * are of one turn, so `session` (its copy) has none; a hang-up reads these, any turn begins its own.
     */
    protected readonly lastTurnPath: Session['turn_path'],
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
    if (action.type === 'gather' || !settings || language !== planLanguage) return action.language === language ? action : withFields(action, language, undefined);
    // Without conditional spreads: each made a temporary object, and every prompt of a plan with a language comes here.
    const twilio = settings.twilio_voice;
    const tts = settings.tts_voice;
    return withFields(action, language, !twilio && !tts ? undefined : twilio && tts ? { twilio, tts } : twilio ? { twilio } : { tts });
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
    // The session's variables copied key by key, then the built-ins stored by name after them, as
    // a spread of the two did (a built-in never names a variable): spreading a literal of them
    // into the copy took 8 to 10 % of bench:engine (copyVariables says why).
    const vars = copyVariables(session.variables) as Record<string, Value> & Record<BuiltinVariable, Value>;
    vars.caller = session.caller;
    vars.called = session.called;
    vars.channel = session.channel;
    vars.protocol = session.protocol ?? '';
    vars.session_id = session.id;
    vars.plan_id = currentFrame(session).plan_id;
    vars.tenant_id = session.tenant_id;
    vars.last_digits = session.last_digits;
    vars.last_input = session.last_input;
    vars.now = this.nowText;
    return vars;
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

/**
 * `{ ...action, language, voices }` (voices left out when undefined), copied key by key: a spread
 * copy that then takes a key costs several times this (copyVariables says why), and on a host
 * that names the session's language every prompt is copied so.
 */
function withFields<A extends Extract<Action, { type: 'say' | 'gather' }>>(action: A, language: string, voices: { twilio?: string; tts?: string } | undefined): A {
  const copy = {} as Record<string, unknown>;
  for (const key in action) copy[key] = action[key as keyof A];
  copy.language = language;
  if (voices !== undefined) copy.voices = voices;
  return copy as A;
}
