/**
 * What the test panel knows of a simulator run (docs/simulator.md), as a pure reducer: the frames
 * the server streams, the inputs the caller sent and the socket's state go in; the path, the
 * prompt the plan waits on, the transcript, the report and the errors come out.
 */
import type { ApiErrorBody, CallReportRecord } from '@voxplan/contracts';
import type { SimulatorCallee, SimulatorClientFrame, SimulatorServerFrame } from '@voxplan/contracts/simulator';
import type { Action, PathEntry, ReplyOption } from '@voxplan/engine';

export type SimulatorChannel = 'voice' | 'chat';
/** The draft, the version calls run now, or a published version by its number. */
export type SimulatorVersion = 'draft' | 'published' | number;
export type SimulatorInput = Exclude<SimulatorClientFrame, { type: 'start' }>;

/**
 * `checking`: asking the server whether this user may run the plan; `refused`: it said no (the
 * reason is in `errors`); `closed`: the socket went away, and the session with it.
 */
export type ConnectionStatus = 'idle' | 'checking' | 'connecting' | 'open' | 'refused' | 'closed';

/** The session: none yet, starting, running an input, waiting for the caller, or over. */
export type SessionStatus = 'none' | 'starting' | 'running' | 'waiting' | 'ended';

/** One line of the conversation, in the order it happened. */
export type TranscriptEntry =
  | { from: 'caller'; input: SimulatorInput; label?: string }
  | { from: 'plan'; action: Action; eventId: string };

/**
 * What the plan waits for after its last turn: keys or speech, a dial's outcome, a choice, or a
 * chat's hand-off, which the server posts itself (docs/handoff.md): its outcome arrives as the
 * server's own `simulator:handoff` turn, so the tester has nothing to choose.
 */
export type Prompt =
  | { kind: 'gather'; action: Extract<Action, { type: 'gather' }> }
  | { kind: 'dial'; action: Extract<Action, { type: 'dial' }> }
  | { kind: 'handoff'; action: Extract<Action, { type: 'dial' }> }
  | { kind: 'options'; options: ReplyOption[] };

export interface SimulatorError {
  eventId: string | null;
  error: ApiErrorBody['error'];
}

export interface SimulatorState {
  connection: ConnectionStatus;
  status: SessionStatus;
  sessionId: string | null;
  channel: SimulatorChannel | null;
  version: SimulatorVersion | null;
  /** Blocks entered, in order; an entry's `exit` is filled in when the session leaves it. */
  path: PathEntry[];
  /** The block the session is in now (entered, not left). */
  current: PathEntry | null;
  transcript: TranscriptEntry[];
  prompt: Prompt | null;
  /** The variables the run started with, then the report's once it ended. */
  variables: Record<string, unknown>;
  report: CallReportRecord | null;
  errors: SimulatorError[];
  /** The time the run's date ranges read, when it runs "as if" (the `started` frame's `as_if`). */
  asIf: { at: string; holiday: boolean } | null;
  /** An outbound test call: the number the plan called (as the server normalised it) and what its callee did. */
  outbound: { to: string; callee: SimulatorCallee } | null;
  /** The run was going when the socket closed for a sign-in renewed (the panel reconnected by itself). */
  endedByRenewal: boolean;
  /**
   * The state before the first frame of the input being run: a `discarded` frame voids that
   * input's frames, which then come again, so the state goes back to this.
   */
  turnStart: { eventId: string; state: SimulatorState } | null;
}

export type SimulatorEvent =
  /** `renewed`: closed because its access token expired; the panel opens a new socket at once. */
  | { kind: 'connection'; status: ConnectionStatus; error?: ApiErrorBody['error']; renewed?: boolean }
  | { kind: 'start'; channel: SimulatorChannel; version: SimulatorVersion; variables?: Record<string, unknown> }
  | { kind: 'input'; input: SimulatorInput; label?: string }
  | { kind: 'frame'; frame: SimulatorServerFrame };

/** The restart's hang-up of the session being replaced: nothing of it belongs to the new run. */
const RESTART_EVENT = 'simulator:restart';

const freshSession = {
  status: 'none',
  sessionId: null,
  channel: null,
  version: null,
  path: [],
  current: null,
  transcript: [],
  prompt: null,
  variables: {},
  report: null,
  errors: [],
  asIf: null,
  outbound: null,
  endedByRenewal: false,
  turnStart: null,
} as const satisfies Omit<SimulatorState, 'connection'>;

export const initialSimulatorState: SimulatorState = { connection: 'idle', ...freshSession };

/** What an action leaves the caller to answer, if anything. */
function promptOf(action: Action, channel: SimulatorChannel | null): Prompt | null {
  switch (action.type) {
    case 'gather':
      return { kind: 'gather', action };
    case 'dial':
      return { kind: channel === 'chat' ? 'handoff' : 'dial', action };
    case 'reply':
      return action.options && action.options.length > 0 ? { kind: 'options', options: action.options } : null;
    default:
      return null;
  }
}

function applyFrame(state: SimulatorState, frame: SimulatorServerFrame): SimulatorState {
  if (frame.type === 'error') {
    // A refused start leaves no session; a refused input leaves the session as it was.
    const status = frame.event_id === 'start' && state.status === 'starting' ? 'none' : state.status === 'running' ? 'waiting' : state.status;
    return { ...state, status, errors: [...state.errors, { eventId: frame.event_id, error: frame.error }] };
  }
  if (frame.type === 'started') {
    return { ...state, sessionId: frame.session_id, channel: frame.channel, version: frame.version, status: 'running', asIf: frame.as_if ?? null, outbound: frame.outbound ?? null };
  }
  if (frame.event_id === RESTART_EVENT) return state;
  if (frame.type === 'discarded') {
    // The input's frames come again and mark the same point anew.
    return state.turnStart?.eventId === frame.event_id ? { ...state.turnStart.state, connection: state.connection } : state;
  }
  // The first frame of an input marks the point a `discarded` frame would bring the state back to.
  // Once the plan moves, the prompt it waited on is answered; an input it ignored moves nothing
  // (its only frame is `turn`), and the prompt stays.
  const isNew = state.turnStart?.eventId !== frame.event_id;
  const marked = isNew ? { ...state, turnStart: { eventId: frame.event_id, state }, ...(frame.type !== 'turn' && { prompt: null }) } : state;
  switch (frame.type) {
    case 'node':
      return { ...marked, path: [...marked.path, frame.node], current: frame.node };
    case 'exit': {
      // The entry left is the latest one of that block still without an exit.
      const index = marked.path.findLastIndex((entry) => entry.node_id === frame.node.node_id && entry.plan_id === frame.node.plan_id && entry.exit === null);
      const path = index < 0 ? marked.path : marked.path.with(index, frame.node);
      const left = marked.current?.node_id === frame.node.node_id && marked.current.plan_id === frame.node.plan_id;
      return { ...marked, path, current: left ? null : marked.current };
    }
    case 'action':
      return {
        ...marked,
        transcript: [...marked.transcript, { from: 'plan', action: frame.action, eventId: frame.event_id }],
        prompt: promptOf(frame.action, marked.channel) ?? marked.prompt,
      };
    case 'ended':
      return { ...marked, report: frame.report, variables: frame.report.variables, status: 'ended', prompt: null };
    case 'turn':
      return { ...marked, status: frame.status, prompt: frame.status === 'ended' ? null : marked.prompt, turnStart: null };
  }
}

export function simulatorReducer(state: SimulatorState, event: SimulatorEvent): SimulatorState {
  switch (event.kind) {
    case 'connection': {
      const errors = event.error ? [...state.errors, { eventId: null, error: event.error }] : state.errors;
      // A closed socket hung the session up on the server: nothing waits for the caller any more.
      const ended = event.status === 'closed' && state.status !== 'none' && state.status !== 'ended';
      return { ...state, connection: event.status, errors, ...(ended && { status: 'ended' as const, prompt: null, endedByRenewal: event.renewed === true }) };
    }
    case 'start':
      return { ...state, ...freshSession, status: 'starting', channel: event.channel, version: event.version, variables: event.variables ?? {} };
    case 'input':
      return {
        ...state,
        status: 'running',
        transcript: [...state.transcript, { from: 'caller', input: event.input, ...(event.label !== undefined && { label: event.label }) }],
      };
    case 'frame':
      return applyFrame(state, event.frame);
  }
}

/** An edge of the plan as saved: the exit `source_exit` of block `source`. */
export interface EdgeRef {
  id: string;
  source: string;
  source_exit: string;
}

/** What the canvas lights: the blocks of this plan the run entered, the exits it took, where it is. */
export interface SimulatorPath {
  nodeIds: string[];
  exits: Array<{ nodeId: string; exit: string }>;
  /** The edges behind those exits, when the plan's edges are known. */
  edgeIds?: string[];
  current?: string;
}

/**
 * The path on plan `planId`'s canvas: blocks of plans it called (`call_plan`) are not on it. With
 * the plan's `edges`, the edges the exits taken follow too.
 */
export function pathOnPlan(state: Pick<SimulatorState, 'path' | 'current'>, planId: number, edges?: readonly EdgeRef[]): SimulatorPath {
  const own = state.path.filter((entry) => entry.plan_id === planId);
  const nodeIds = [...new Set(own.map((entry) => entry.node_id))];
  const exits = own.flatMap((entry) => (entry.exit === null ? [] : [{ nodeId: entry.node_id, exit: entry.exit }]));
  const current = state.current?.plan_id === planId ? state.current.node_id : undefined;
  const taken = new Set(exits.map(({ nodeId, exit }) => `${nodeId}\u0000${exit}`));
  const edgeIds = edges?.filter((edge) => taken.has(`${edge.source}\u0000${edge.source_exit}`)).map((edge) => edge.id);
  return { nodeIds, exits, ...(edgeIds && { edgeIds }), ...(current !== undefined && { current }) };
}
