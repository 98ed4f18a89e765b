/**
 * One simulator WebSocket (docs/simulator.md): the editor's test panel runs a plan as a voice call
 * or a chat. Frames are handled one at a time, in the order they came; each input is a turn of the
 * session runtime, whose progress is streamed as it happens, so the panel lights a block while a
 * slow request in it is still under way.
 */
import type { Locale } from '@voxplan/contracts';
import {
  type SimulatorInputFrame,
  type SimulatorServerFrame,
  type SimulatorStartFrame,
  simulatorClientFrameSchema,
} from '@voxplan/contracts/simulator';
import type { Action, EngineEvent, PathEntry, ScheduleClock } from '@voxplan/engine';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../errors.ts';
import { apiErrorOf } from '../../plugins/errors.ts';
import type { ChatSender } from '../../modules/sessions/chat-channels.ts';
import { readPlanVersions } from '../../modules/sessions/plan-loader.ts';
import { findEventOutcome } from '../../modules/sessions/sessions.repository.ts';
import { findReport } from '../../modules/sessions/call-reports.repository.ts';
import { newSessionId, type StartRequest, type TurnOutcome, type TurnProgress } from '../../modules/sessions/sessions.service.ts';
import { placeSimulatedCall } from './simulator.outbound.ts';
import { encodeTextFrames } from './text-frames.ts';

/** Frames a client may have waiting before the connection is closed as abusive. */
const MAX_QUEUED_FRAMES = 32;
/** WebSocket close code for a peer that breaks the protocol's rules (RFC 6455, 7.4.1). */
const POLICY_VIOLATION = 1008;
/**
 * Event ids as the session runtime stores them: a client's frame ids under `frame:`, the
 * simulator's own events under `simulator:`, so that no client id can pass for one of these (an
 * event id seen before answers its stored outcome and runs nothing).
 */
const clientEventId = (frameId: string): string => `frame:${frameId}`;
const RESTART_EVENT = 'simulator:restart';
const SOCKET_CLOSED_EVENT = 'simulator:closed';
/** The simulator's event ids for the turns the server takes on its own, by the stored event id's prefix. */
const unpromptedEventId = (storedEventId: string): string => (storedEventId.startsWith('handoff:') ? 'simulator:handoff' : 'simulator:timeout');

/**
 * The simulator's chat sender: a turn nobody waits on (an idle chat ended, a hand-off's outcome)
 * may be taken by any instance, while the panel's socket is open on one. The instance bus tells
 * every instance which stored turn it was; the one holding the socket reads it back and sends its
 * frames. Only ids travel: a NOTIFY payload is small, and the turn is stored anyway.
 */
const SIMULATOR_TOPIC = 'simulator.turn';

interface SimulatorTurnMessage {
  session_id: string;
  event_id: string;
}

export const publishSimulatorTurn: ChatSender = (ctx, delivery) => {
  ctx.bus.publish(SIMULATOR_TOPIC, { session_id: delivery.session.id, event_id: delivery.event_id } satisfies SimulatorTurnMessage);
  return Promise.resolve();
};

export interface SimulatedPlan {
  id: number;
  tenant_id: number;
}

/** The TCP socket under the WebSocket: what the frames of a pass are written to, at once. */
export interface FrameTransport {
  write(chunk: Buffer): unknown;
}

export interface ConnectionContext {
  ctx: AppContext;
  transport: FrameTransport;
  plan: SimulatedPlan;
  locale: Locale;
  sourceIp: string;
  log: FastifyBaseLogger;
}

const inputEvent = (frame: SimulatorInputFrame): EngineEvent => {
  const { id: _id, ...event } = frame;
  return event;
};

/** A turn's progress as frames: an object with methods, not four closures made for every input. */
class TurnFrames implements TurnProgress {
  constructor(
    private readonly send: (frame: SimulatorServerFrame) => void,
    private readonly eventId: string,
  ) {}

  entered(node: PathEntry): void {
    this.send({ type: 'node', event_id: this.eventId, node });
  }

  exited(node: PathEntry): void {
    this.send({ type: 'exit', event_id: this.eventId, node });
  }

  action(action: Action): void {
    this.send({ type: 'action', event_id: this.eventId, action });
  }

  discarded(): void {
    this.send({ type: 'discarded', event_id: this.eventId });
  }
}

/** A turn's progress as the frames the panel reads, sent as it happens. */
export const turnFrames = (send: (frame: SimulatorServerFrame) => void, eventId: string): TurnProgress => new TurnFrames(send, eventId);

export class SimulatorConnection {
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  /** The session this socket runs, while it has not ended. */
  private live: { id: string; stopWatching: () => void } | null = null;
  /** The frames sent in this pass of the event loop, as text, not yet written. */
  private unwritten: string[] = [];
  private readonly sendFrame = (frame: SimulatorServerFrame): void => this.send(frame);
  /** Settles once the socket closed and the live session, if any, was hung up. */
  readonly finished: Promise<void>;

  constructor(
    private readonly socket: WebSocket,
    private readonly context: ConnectionContext,
  ) {
    // Listeners go on before anything is awaited, or frames sent at once would be lost.
    socket.on('message', (data, isBinary) => this.enqueue(() => this.receive(isBinary ? null : data.toString())));
    this.finished = new Promise((resolve) => {
      socket.on('close', () => {
        this.enqueue(() => this.hangUpLive(SOCKET_CLOSED_EVENT), true);
        void this.queue.then(resolve);
      });
    });
  }

  private enqueue(work: () => Promise<void>, always = false): void {
    if (!always && ++this.queued > MAX_QUEUED_FRAMES) {
      this.close(POLICY_VIOLATION, 'too many frames waiting');
      return;
    }
    this.queue = this.queue
      .then(work)
      .catch((error: unknown) => this.context.log.error({ err: error }, 'simulator frame failed'))
      .finally(() => {
        if (!always) this.queued--;
      });
  }

  /**
   * Frames sent in one pass of the event loop leave in one write: a turn's blocks run on without
   * waiting for each other unless one calls out, and a write to a socket costs a system call that
   * wakes the reader; one per frame made writing the bulk of a simulated call's cost. A block that
   * waits (a request, a script) ends the pass, so the panel still sees the blocks before it light up.
   */
  private send(frame: SimulatorServerFrame): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.unwritten.length === 0) setImmediate(this.writeFrames);
    this.unwritten.push(JSON.stringify(frame));
  }

  /**
   * The pass's frames, framed here in one buffer: `ws` writes each frame's header and body apart,
   * and the socket's writev of all those pieces cost more than the frames' JSON. Frames written
   * straight to the socket are what `ws` writes for text (no extension is ever negotiated here:
   * the server offers none); should one be, they go through `ws`.
   */
  private readonly writeFrames = (): void => {
    const texts = this.unwritten;
    if (texts.length === 0) return;
    this.unwritten = [];
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.extensions === '') this.context.transport.write(encodeTextFrames(texts));
    else for (const text of texts) this.socket.send(text);
  };

  /** Closes the socket after the frames already sent: a close frame must not overtake them. */
  close(code: number, reason: string): void {
    this.writeFrames();
    this.socket.close(code, reason);
  }

  private sendError(eventId: string | null, error: unknown): void {
    this.send({ type: 'error', event_id: eventId, error: apiErrorOf(error, this.context.locale, this.context.log).body.error });
  }

  private async receive(text: string | null): Promise<void> {
    let raw: unknown;
    try {
      if (text === null) throw new Error('frames are JSON text, not binary');
      raw = JSON.parse(text);
    } catch (error) {
      this.sendError(null, badRequest('invalid_input', [{ path: '', message: error instanceof Error ? error.message : 'not JSON' }]));
      return;
    }
    const parsed = simulatorClientFrameSchema.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      this.sendError(typeof id === 'string' ? id : null, parsed.error);
      return;
    }
    const frame = parsed.data;
    try {
      if (frame.type === 'start') await this.start(frame);
      else await this.input(frame);
    } catch (error) {
      this.sendError(frame.type === 'start' ? 'start' : frame.id, error);
    }
  }

  /** Streams a turn's blocks and actions to the client while it runs. */
  private progress(eventId: string): TurnProgress {
    return turnFrames(this.sendFrame, eventId);
  }

  /** A new session; one still running on this socket is hung up first (the panel's restart). */
  private async start(frame: SimulatorStartFrame): Promise<void> {
    await this.hangUpLive(RESTART_EVENT);
    const { ctx, plan } = this.context;
    const current = await readPlanVersions(ctx.db, ctx.readCache, plan.tenant_id, plan.id);
    if (!current) throw notFound();
    if (frame.version === 'published' && current.published_version === null) throw badRequest('plan_not_published');
    const sessionId = newSessionId();
    const asIf = frame.as_if && asIfClock(frame.as_if, Date.now());
    const call = frame.outbound && (await placeSimulatedCall(ctx, plan.tenant_id, sessionId, frame));
    const started = (): void =>
      this.send({
        type: 'started',
        session_id: sessionId,
        plan_id: plan.id,
        channel: frame.channel,
        version: frame.version,
        ...(asIf && { as_if: asIf.shown }),
        ...(call && { outbound: { to: call.to, callee: call.callee } }),
      });
    const request: StartRequest = {
      id: sessionId,
      tenant_id: plan.tenant_id,
      plan_id: plan.id,
      channel: frame.channel,
      provider: 'simulator',
      direction: call ? 'outbound' : 'inbound',
      // An outbound call's caller is the tenant's side and its called the number dialled, as the outbound core stores them.
      caller: frame.caller,
      called: call?.to ?? frame.called,
      source_ip: this.context.sourceIp,
      ...((frame.variables || call?.answered_by) && { variables: { ...frame.variables, ...(call?.answered_by && { answered_by: call.answered_by }) } }),
      draft: frame.version === 'draft',
      ...(typeof frame.version === 'number' && { version: frame.version }),
      is_test: true,
      ...(frame.start_node !== undefined && { start_node: frame.start_node }),
      ...(asIf && { schedule_clock: asIf.clock }),
    };
    const outcome = await ctx.sessions.start(call?.unanswered ? { ...request, unanswered: call.unanswered } : request, {
      observer: this.progress('start'),
      // Before the first block's frames; a start refused (a block not in the plan) is never `started`.
      accepted: started,
    });
    if (outcome.status !== 'ended') {
      this.live = { id: sessionId, stopWatching: this.watch(sessionId) };
    }
    this.finishTurn('start', outcome);
  }

  private async input(frame: SimulatorInputFrame): Promise<void> {
    if (!this.live) throw notFound('session_not_found');
    const { id: sessionId } = this.live;
    const outcome = await this.context.ctx.sessions.handleTurn(sessionId, clientEventId(frame.id), inputEvent(frame), {
      tenantId: this.context.plan.tenant_id,
      observer: this.progress(frame.id),
    });
    this.finishTurn(frame.id, outcome);
  }

  /** Listens for the turns of the session that nobody waits on (the simulator's chat sender). Answers the function that stops it. */
  private watch(sessionId: string): () => void {
    return this.context.ctx.bus.subscribe(SIMULATOR_TOPIC, (message) => {
      // Only instances of this server publish on the topic.
      const turn = message as SimulatorTurnMessage;
      if (turn.session_id === sessionId) this.enqueue(() => this.unpromptedTurn(turn), true);
    });
  }

  private async unpromptedTurn({ session_id: sessionId, event_id: eventId }: SimulatorTurnMessage): Promise<void> {
    const { db } = this.context.ctx;
    const stored = await findEventOutcome(db, sessionId, eventId);
    if (!stored) return;
    const report = stored.status === 'ended' ? ((await findReport(db, sessionId)) ?? null) : null;
    this.sendTurn(unpromptedEventId(eventId), { ...stored, session_id: sessionId, duplicate: false, report });
  }

  /** A turn the server took on its own (a chat left idle, a hand-off's outcome): nothing was streamed, so its frames are sent now. */
  private sendTurn(eventId: string, outcome: TurnOutcome): void {
    if (outcome.resumed) this.send({ type: 'exit', event_id: eventId, node: outcome.resumed });
    for (const node of outcome.entered) this.send({ type: 'node', event_id: eventId, node });
    for (const action of outcome.actions) this.send({ type: 'action', event_id: eventId, action });
    this.finishTurn(eventId, outcome);
  }

  /** The input's last frames: the report when the session ended, then `turn`. */
  private finishTurn(eventId: string, outcome: TurnOutcome): void {
    const status = outcome.status === 'ended' ? 'ended' : 'waiting';
    if (outcome.report) this.send({ type: 'ended', event_id: eventId, session_id: outcome.session_id, report: outcome.report });
    this.send({
      type: 'turn',
      event_id: eventId,
      session_id: outcome.session_id,
      revision: outcome.revision,
      status,
      ignored: outcome.ignored,
      duplicate: outcome.duplicate,
    });
    if (status === 'ended' && this.live?.id === outcome.session_id) {
      this.live.stopWatching();
      this.live = null;
    }
  }

  /** Ends the running session as the caller hanging up, so that no test call is left waiting. */
  private async hangUpLive(eventId: string): Promise<void> {
    if (!this.live) return;
    const { id } = this.live;
    try {
      const outcome = await this.context.ctx.sessions.handleTurn(id, eventId, { type: 'hangup' }, { tenantId: this.context.plan.tenant_id, observer: this.progress(eventId) });
      this.finishTurn(eventId, outcome);
    } finally {
      if (this.live?.id === id) {
        this.live.stopWatching();
        this.live = null;
      }
    }
  }
}

/** A start frame's `as_if` as the engine's ScheduleClock (an offset from the real time), and as `started` tells it back. */
function asIfClock(asIf: NonNullable<SimulatorStartFrame['as_if']>, now: number): { clock: ScheduleClock; shown: { at: string; holiday: boolean } } {
  const at = asIf.at === undefined ? now : Date.parse(asIf.at);
  return { clock: { offset_ms: at - now, holiday: asIf.holiday }, shown: { at: new Date(at).toISOString(), holiday: asIf.holiday } };
}
