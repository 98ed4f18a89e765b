/**
 * What a block's runtime is, and what it sees of a turn. Block runtimes live in
 * `@voxplan/blocks` (one folder per block); `compilePlan` there turns a plan document into a
 * `CompiledPlan` whose nodes carry their runtime and their data, validated and precompiled once.
 *
 * `EnginePorts` and `PlanLoader` live here, not in ports.ts, because they and `CompiledPlan` name
 * each other (a plan loader answers a compiled plan whose blocks are handed the ports): one file
 * holds that knot, and ports.ts keeps the single ports, which import nothing from here.
 */
import type { Action, ReplyOption } from './actions.ts';
import type { InputEvent } from './events.ts';
import type { Scope } from './expression.ts';
import type {
  AiPort,
  AudioLookup,
  Clock,
  CustomerWindow,
  DestinationLookup,
  MaybePromise,
  Messaging,
  OutboundHttp,
  ProtocolGenerator,
  RecordingAnalysis,
  Schedules,
  ScriptRunner,
  Templates,
  TurnObserver,
} from './ports.ts';
import type { DialStatus, FailureCode, HangupCause, JsonValue, Session } from './session.ts';
import type { Template } from './template.ts';
import type { Value } from './values.ts';

export interface RuntimeSettings {
  session_timeout_min: number;
  sync_with_voice_text: boolean;
  webhook: string;
  /** What prompts are spoken and heard in; '' is the session's (the tenant's) language. */
  language: string;
  /** The plan's voices, for prompts in its own language: '' leaves each channel its default. */
  twilio_voice: string;
  tts_voice: string;
}

export interface CompiledPlan {
  readonly id: number;
  readonly tenant_id: number;
  readonly name: string;
  readonly version: number;
  readonly settings: RuntimeSettings;
  readonly startNodeId: string;
  /** The start block's `hangup_chat_message`, sent when a chat ends (blocks.md, `hangup`). */
  readonly hangupChatMessage: Template;
  /** The plan's `chat_text`, sent when a chat ends by idle timeout. */
  readonly chatTimeoutText: Template;
  readonly nodes: ReadonlyMap<string, RuntimeNode>;
}

export interface RuntimeNode<C = unknown> {
  readonly id: string;
  readonly type: string;
  /** The name a person gave the block, when one was given. */
  readonly label?: string;
  /** The goal's name when the block is a goal ("paid"): a session that reaches it is converted (docs/rollouts.md, "Goals"). */
  readonly goal?: string;
  /** The block's data, validated and precompiled (templates, expressions, paths). */
  readonly config: C;
  readonly runtime: BlockRuntime<C>;
  /** Exit name → the node it leads to; an exit not here is unconnected. */
  readonly targets: ReadonlyMap<string, string>;
  /**
   * The exit the block takes when what it sent could not reach the customer (`failed`, `error`),
   * where it has one: a reply withheld outside the customer window leaves by it.
   */
  readonly errorExit?: string;
}

/**
 * A block as an operator's message names it: by the name a person gave it ("block “Welcome”
 * (play_message)"), else by its id, which is then all that tells blocks of one type apart.
 */
export function blockReference(node: Pick<RuntimeNode, 'id' | 'type' | 'label'>): string {
  return node.label === undefined ? `block ${node.id} (${node.type})` : `block “${node.label}” (${node.type})`;
}

/** What a block does next. */
export type Outcome =
  /** Leave by this exit. */
  | { exit: string }
  /** Stay, and wait for the next input event. */
  | { wait: true }
  /** End the session as `hangup` does. */
  | { end: HangupCause; reject?: boolean }
  /** Go on at the start of another plan (`call_plan`). */
  | { enterPlan: CompiledPlan }
  /** Stop the session as failed. */
  | { fail: FailureCode; message: string };

export type { MaybePromise };

export interface BlockRuntime<C = unknown> {
  /** The session arrives at the block. */
  enter(turn: Turn, node: RuntimeNode<C>): MaybePromise<Outcome>;
  /**
   * An input event while the session waits in the block. `undefined`: the block has no use for
   * this event, which is then ignored. Blocks that never wait leave this out.
   */
  resume?(turn: Turn, node: RuntimeNode<C>, event: InputEvent): MaybePromise<Outcome | undefined>;
}

export interface RecordingStart {
  format: 'wav' | 'mp3';
  analyses: RecordingAnalysis[];
  min_duration_s: number;
  percentage: number;
  anonymization: boolean;
}

/** A block's view of the turn: read the session, change it only through these methods. */
export interface Turn {
  readonly session: Readonly<Session>;
  readonly plan: CompiledPlan;
  readonly ports: EnginePorts;
  /** The clock, read once per turn. */
  readonly now: Date;
  /** What a date range reads: `now`, or a test run's "as if" time and holiday (Session.schedule_clock). */
  readonly schedule: { instant: Date; holiday: boolean };
  /** Built-in and session variables, for templates and expressions. */
  readonly scope: Scope;
  /** What the block kept while waiting; `null` when it just arrived. Treat it as read-only. */
  readonly state: JsonValue | null;
  render(template: Template): string;
  /** The language of speech in a block: `override` (the block's own) when given, else the plan's, else the session's. */
  speechLanguage(override?: string): string;
  /**
   * Adds an action; what is said or replied also goes on the transcript. A reply outside the
   * customer window (CustomerWindow) is withheld instead: the block's path entry names the reason
   * and the block leaves by its error exit, where it has one.
   */
  emit(action: Action): void;
  /**
   * The replies of this turn no port has sent yet, now marked `sent`: a block that sends through a
   * port (a WhatsApp template) sends them first, so the customer reads them in the plan's order.
   */
  takeReplies(): Array<{ text: string; options?: ReplyOption[] }>;
  /** Whether free-form messages reach the customer now (WhatsApp's 24-hour window); always true elsewhere. */
  readonly customerWindowOpen: boolean;
  /** Why the block failed or left something unsent: its path entry, and so the report, names it. */
  noteReason(reason: string): void;
  /** Sets a variable; names a plan may not assign (built-ins, `__proto__`) are refused with `false`. */
  setVariable(name: string, value: Value): boolean;
  /** User variables and built-ins, as a Lua script sees them. */
  variables(): Record<string, Value>;
  setState(state: JsonValue | null): void;
  /** Digits the caller pressed in this block: `{{last_digits}}` and the report. */
  recordDigits(digits: string): void;
  /** Text the caller said or wrote: `{{last_input}}` and the transcript. */
  recordInput(text: string): void;
  setProtocol(protocol: string): void;
  setDialStatus(status: DialStatus): void;
  startRecording(recording: RecordingStart): void;
}

/**
 * Plans as the engine runs them: compiled once per version by `compilePlan` of
 * `@voxplan/blocks/runtime` (the host caches them; a published version never changes).
 */
export interface PlanLoader {
  /** A version the session pinned when it started or entered the plan. */
  load(tenantId: number, planId: number, version: number): MaybePromise<CompiledPlan | undefined>;
  /**
   * The version a new session (or `call_plan`) runs: the latest published one, or the version a
   * staged rollout chose for `contactKey` (docs/rollouts.md); `undefined` when the tenant has no
   * such published plan.
   */
  loadPublished(tenantId: number, planId: number, contactKey?: string): MaybePromise<CompiledPlan | undefined>;
}

/** Everything the host passes to `startSession` and `handleEvent`. */
export interface EnginePorts {
  plans: PlanLoader;
  scripts: ScriptRunner;
  http: OutboundHttp;
  schedules: Schedules;
  destinations: DestinationLookup;
  audios: AudioLookup;
  messaging: Messaging;
  /** Absent: templates cannot be sent or read (`unconfiguredTemplates`). */
  templates?: Templates;
  /** Absent: no session has a customer window. */
  customerWindow?: CustomerWindow;
  ai: AiPort;
  clock: Clock;
  protocols: ProtocolGenerator;
  /** Left out by hosts that only want the turn's result. */
  observer?: TurnObserver;
}
