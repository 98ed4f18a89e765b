/**
 * A session is one call or one chat conversation (blocks.md, "The session"). It is plain JSON:
 * the host stores it between turns, so any server instance can take the next one.
 */
import { copyVariables, type Value } from './values.ts';

export const sessionFormatVersion = 1;

export const channels = ['voice', 'chat'] as const;
export type Channel = (typeof channels)[number];
export const providers = ['twilio', 'asterisk', 'whatsapp', 'webchat', 'simulator'] as const;
export type Provider = (typeof providers)[number];
export type Direction = 'inbound' | 'outbound';

/** `new` before the first turn; a stored session is `waiting` (for input) or `ended`. */
export type SessionStatus = 'new' | 'waiting' | 'ended';
/**
 * `expired`: the channel never told the session's end; the host closed it after a while without
 * activity. `missed`: a chat asked for a person and none took it (nobody online, or nobody in
 * time), whatever the plan did after (docs/handoff.md, "Outcomes").
 */
export const dispositions = ['routed', 'retained', 'abandoned', 'failed', 'expired', 'missed'] as const;
export type Disposition = (typeof dispositions)[number];
/**
 * The call report's dial statuses (spec section 3, "Call report"), and `failed` for what that
 * list has no word for: the provider could not place the call (Twilio `failed`, Asterisk
 * `CONGESTION` or `CHANUNAVAIL`). `invalid_args` also stands for a destination that no longer exists.
 */
export const dialStatuses = ['answer', 'busy', 'cancel', 'dont_call', 'no_answer', 'invalid_args', 'failed'] as const;
export type DialStatus = (typeof dialStatuses)[number];
/**
 * The `hangup` block's causes, and the ways a session ends without it: the caller hung up, a
 * chat went idle past the plan's session timeout, the engine stopped it (`failure` says why), the
 * end never arrived (`end_not_received`, the `expire` event), or the person who took a chat
 * resolved it (`resolved`).
 */
export const hangupCauses = ['normal_clearing', 'busy', 'rejected', 'caller_hangup', 'session_timeout', 'engine_error', 'end_not_received', 'resolved'] as const;
export type HangupCause = (typeof hangupCauses)[number];

/** Why the engine stopped a session (docs/engine.md, "Failures"). */
export type FailureCode =
  | 'plan_not_found'
  | 'node_not_found'
  | 'step_limit'
  | 'loop_limit'
  | 'plan_depth_limit'
  | 'plan_recursion'
  | 'reference_not_found'
  | 'block_error'
  /** Not the session's end: a prompt the channel could not play (the call went on without it). */
  | 'prompt_unplayable'
  /** Not the session's end either: the channel had no speech engine for a speech gather (it heard silence). */
  | 'speech_engine_unavailable'
  /** An outbound chat whose first message could not be delivered (the `undelivered` event). */
  | 'outside_customer_window'
  | 'reengagement_needed'
  | 'message_undelivered';

export interface SessionFailure {
  code: FailureCode;
  message: string;
  plan_id: number | null;
  node_id: string | null;
}

export interface PlanFrame {
  plan_id: number;
  plan_version: number;
  plan_name: string;
}

export interface PathEntry {
  plan_id: number;
  node_id: string;
  type: string;
  /** When the session entered the block. */
  at: string;
  /** The exit it left by; `null` while the session is in it, or when it ended there. */
  exit: string | null;
  /**
   * Why the block failed or left something unsent (`outside_customer_window`, a provider's
   * refusal such as `template_parameter_mismatch`): the report names it. Absent when all went well.
   */
  reason?: string;
}

export interface DigitsEntry {
  plan_id: number;
  node_id: string;
  digits: string;
  at: string;
}

export interface RecordingState {
  plan_id: number;
  node_id: string;
  format: 'wav' | 'mp3';
  analyses: RecordingAnalysis[];
  min_duration_s: number;
  anonymization: boolean;
  /** Whether this session falls in the block's `percentage` of sessions analysed. */
  selected: boolean;
  /** `recorded`: kept without analysis (not sampled, too short, or no analyses asked). */
  status: 'recording' | 'recorded' | 'analysed' | 'failed';
  url: string | null;
  duration_s: number | null;
  results: AnalysisResults | null;
  error: string | null;
}

/** A JSON value: what a block keeps between turns while the session waits in it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface Session {
  format_version: typeof sessionFormatVersion;
  id: string;
  tenant_id: number;
  /** The plan the session started in, at the version pinned then. */
  plan_id: number;
  plan_version: number;
  plan_name: string;
  /** Plans entered through `call_plan`, each at the version pinned when entered; the last is current. */
  call_stack: PlanFrame[];
  channel: Channel;
  provider: Provider;
  direction: Direction;
  caller: string;
  called: string;
  source_ip: string | null;
  status: SessionStatus;
  /** The block the session is in (of the current plan). */
  node_id: string | null;
  /** What that block keeps while it waits (retries, chatbot history). */
  node_state: JsonValue | null;
  variables: Record<string, Value>;
  last_digits: string;
  last_input: string;
  protocol: string | null;
  path: PathEntry[];
  /**
   * The last turn's blocks, for a channel that carries a turn's actions out one by one (AGI): the
   * index in `path` its first block has, and for each block of the turn how many of the turn's
   * actions came before it. A hang-up naming how many actions were started leaves out of the
   * path the blocks the caller never reached. Absent in sessions stored before it.
   */
  turn_path?: { start: number; actions: number[] };
  digits: DigitsEntry[];
  transcript: TranscriptEntry[];
  /**
   * Turns the session has taken (ignored events do not count). A host that stores sessions can
   * write a turn's result only if the stored session still has the count it read, so two
   * instances handling events of one call at once cannot overwrite each other.
   */
  turns: number;
  /** Blocks entered so far, and how many times in a row the current one was entered. */
  steps: number;
  same_node_streak: number;
  started_at: string;
  ended_at: string | null;
  hangup_cause: HangupCause | null;
  disposition: Disposition | null;
  dial_status: DialStatus | null;
  failure: SessionFailure | null;
  recording: RecordingState | null;
  /** `SessionInit.language`; absent from sessions stored before it, which then speak the engine's default. */
  language?: string;
  /**
   * The first goal block the session reached: its goal's name, and the index of its entry in
   * `path` (a hang-up that cuts the path before it takes the goal back). Absent until one is reached.
   */
  goal?: { name: string; path_index: number };
  /** `SessionInit.schedule_clock`: a test run "as if" at another time; absent for every other session. */
  schedule_clock?: ScheduleClock;
  /**
   * `SessionInit.contact_key`: who the session is with, as a staged rollout tells contacts apart
   * (the `call_plan` block chooses the called plan's version by it too). Absent when the host gave none.
   */
  contact_key?: string;
  /**
   * The plans `call_plan` entered, each once (the first entry decides its version), with the index
   * in `path` its first block has: a rollout of a called plan counts the session under that version
   * (docs/rollouts.md, "`call_plan`"). Absent in a session that called no plan.
   */
  called_plans?: CalledPlan[];
}

/** A plan a session entered through `call_plan`, at the version it ran, from `path[path_index]` on. */
export interface CalledPlan {
  plan_id: number;
  plan_version: number;
  path_index: number;
  /** The first goal the session reached from then on, in that plan or after it (`Session.goal`'s form). */
  goal?: { name: string; path_index: number };
}

/**
 * The clock a test session's date ranges read instead of the real one (the simulator's "as if"):
 * the real time moved by `offset_ms`, and with `holiday` every range answers `holiday`. Nothing
 * else in the session reads it (timeouts, reports and `{{now}}` keep the real time), and the
 * tenant's schedules and holidays are never changed.
 */
export interface ScheduleClock {
  offset_ms: number;
  holiday: boolean;
}

export interface SessionInit {
  /** Chosen by the host (a call SID, a UUID): the session's `{{session_id}}`. */
  id: string;
  tenant_id: number;
  plan_id: number;
  /** A version to run (the simulator runs drafts); the latest published one when left out. */
  plan_version?: number;
  channel: Channel;
  provider: Provider;
  direction?: Direction;
  caller: string;
  called: string;
  source_ip?: string | null;
  /** Variables set before the first block, e.g. by an outbound campaign. */
  variables?: Record<string, Value>;
  /** The language prompts are spoken in when the plan names none: the tenant's, else the server's (BCP 47). */
  language?: string;
  /** Test sessions only: the time the date ranges read (ScheduleClock). */
  schedule_clock?: ScheduleClock;
  /**
   * Who the session is with, for a staged rollout's sticky choice (the caller's number, a web chat
   * visitor's id): passed to `PlanLoader.loadPublished`, here and by `call_plan`.
   */
  contact_key?: string;
}

/** The plan the session is in now: the last one `call_plan` entered, else the first. */
export function currentFrame(session: Session): PlanFrame {
  return session.call_stack.at(-1) ?? { plan_id: session.plan_id, plan_version: session.plan_version, plan_name: session.plan_name };
}

/**
 * A copy whose mutable parts are fresh, so a turn never changes the session it was given.
 * Entries of the lists are replaced, never changed in place, so the lists are copied shallowly.
 * Field by field rather than by spread: every turn makes one, and one object shape keeps it fast.
 * `withTurnPath: false` leaves out the last turn's marks, which a turn reads from its input.
 */
export function copySession(session: Session, withTurnPath = true): Session {
  const copy = new SessionCopy(session);
  // Set after the constructor rather than spread into it: no temporary object, no generic copy of its properties.
  if (session.schedule_clock) copy.schedule_clock = session.schedule_clock;
  if (session.goal) copy.goal = session.goal;
  if (session.contact_key !== undefined) copy.contact_key = session.contact_key;
  if (session.called_plans) copy.called_plans = session.called_plans.slice();
  if (withTurnPath && session.turn_path) copy.turn_path = new TurnPathRecord(session.turn_path.start, session.turn_path.actions.slice());
  return copy;
}

/**
 * The copy's fields, in a constructor rather than an object literal. V8 decides per literal
 * whether to allocate its objects straight in the old generation ("allocation-site pretenuring")
 * when most of them outlive a young collection, as sessions kept between a host's turns do; a
 * constructor's objects are always allocated young. Pretenured, every copy is old garbage that
 * only a full collection frees, and the young lists and entries it points to are kept alive by
 * it through each young collection, so they are promoted and pretenured in turn: bench:engine's
 * turn spent a third of its time collecting. The prototype is Object's, so a copy is a plain
 * object like the literal was, with the same keys in the same order (JSON, equality, spreads).
 */
interface SessionCopyConstructor {
  new (session: Session): Session;
}
const SessionCopy = function (this: Session, session: Session) {
  this.format_version = session.format_version;
  this.id = session.id;
  this.tenant_id = session.tenant_id;
  this.plan_id = session.plan_id;
  this.plan_version = session.plan_version;
  this.plan_name = session.plan_name;
  this.call_stack = session.call_stack.slice();
  this.channel = session.channel;
  this.provider = session.provider;
  this.direction = session.direction;
  this.caller = session.caller;
  this.called = session.called;
  this.source_ip = session.source_ip;
  this.status = session.status;
  this.node_id = session.node_id;
  this.node_state = session.node_state;
  this.variables = copyVariables(session.variables);
  this.last_digits = session.last_digits;
  this.last_input = session.last_input;
  this.protocol = session.protocol;
  this.path = session.path.slice();
  this.digits = session.digits.slice();
  this.transcript = session.transcript.slice();
  this.turns = session.turns;
  this.steps = session.steps;
  this.same_node_streak = session.same_node_streak;
  this.started_at = session.started_at;
  this.ended_at = session.ended_at;
  this.hangup_cause = session.hangup_cause;
  this.disposition = session.disposition;
  this.dial_status = session.dial_status;
  this.failure = session.failure;
  this.recording = session.recording && { ...session.recording };
  this.language = session.language;
} as unknown as SessionCopyConstructor;
SessionCopy.prototype = Object.prototype;

/**
 * A path entry, made by a constructor for the reason SessionCopy gives: entries live as long as
 * their session's path, so V8 pretenured the literal that made them, and every entry became old
 * garbage. A plain object, keys in the literal's order; `reason` only when given.
 */
interface PathEntryConstructor {
  new (plan_id: number, node_id: string, type: string, at: string, exit: string | null): PathEntry;
}
export const PathEntryRecord = function (this: PathEntry, plan_id: number, node_id: string, type: string, at: string, exit: string | null) {
  this.plan_id = plan_id;
  this.node_id = node_id;
  this.type = type;
  this.at = at;
  this.exit = exit;
} as unknown as PathEntryConstructor;
PathEntryRecord.prototype = Object.prototype;

const noItems: never[] = [];
/**
 * A new empty list for a turn (its actions, its marks), copied from an empty one rather than
 * made by `[]`: a copy has no allocation site, so V8 cannot pretenure it (SessionCopy says why).
 */
export const newList = <T>(): T[] => noItems.slice();

/** A turn's marks in the path (Session.turn_path), by a constructor for the reason SessionCopy gives. */
interface TurnPathConstructor {
  new (start: number, actions: number[]): NonNullable<Session['turn_path']>;
}
export const TurnPathRecord = function (this: NonNullable<Session['turn_path']>, start: number, actions: number[]) {
  this.start = start;
  this.actions = actions;
} as unknown as TurnPathConstructor;
TurnPathRecord.prototype = Object.prototype;

/** One thing said on a session, by the caller or the plan (the transcript the `speech_detection` and `chatbot` blocks read). */
export interface TranscriptEntry {
  from: 'caller' | 'plan';
  text: string;
  at: string;
}

export type RecordingAnalysis =
  | { kind: 'sentiment'; items: string[] }
  | { kind: 'topics'; items: string[] }
  | { kind: 'keywords'; items: string[] }
  | { kind: 'questions'; items: string[] }
  | { kind: 'summary'; max_length: number };

/** Analysis results by kind, as they go on the report. */
export type AnalysisResults = Record<string, unknown>;
