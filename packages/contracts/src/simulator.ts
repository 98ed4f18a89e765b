/**
 * The simulator's WebSocket frames (docs/simulator.md): the editor's test panel runs a plan as a
 * voice call or a chat, sends what the caller does and receives what the plan does, block by
 * block, as it happens. Frames are JSON text messages with a `type`.
 */
import { planNodeSchema } from '@voxplan/blocks/definitions';
import type { Action, PathEntry } from '@voxplan/engine';
import { z } from 'zod';
import type { ApiErrorBody } from './errors.ts';
import { maxId } from './common.ts';
import { instantSchema } from './date-range.ts';
import { type CallReportRecord, reportDialStatuses } from './report.ts';

/** The subprotocol a client offers; the access token may ride beside it as `bearer.<token>`. */
export const simulatorProtocol = 'voxplan.simulator.v1';
export const bearerProtocolPrefix = 'bearer.';

/**
 * The close code of a socket whose credentials ended (a WebSocket application code, RFC 6455 7.4.2):
 * its reason is `token_expired` (open a new socket with a fresh token) or `sign_in_ended`.
 */
export const simulatorSignInEndedCode = 4401;

/** The largest frame a client may send, in bytes. */
export const simulatorMaxFrameBytes = 64 * 1024;

const textOf = (max: number) => z.string().max(max).refine((text) => !text.includes('\0'), 'must not contain NUL characters');

/** The client's name for one input, so that a frame sent twice is applied once (1 to 190 characters). */
const frameIdSchema = textOf(190).min(1);
const variableValueSchema = z.union([z.string().max(4000), z.number(), z.boolean(), z.null()]);

/**
 * What the callee of a simulated outbound call does: answers (a person, or an answering machine),
 * or the call is never answered (the line busy, nobody picks up).
 */
export const simulatorCallees = ['human', 'machine', 'busy', 'no_answer'] as const;
export type SimulatorCallee = (typeof simulatorCallees)[number];

const startFrame = z.strictObject({
  type: z.literal('start'),
  channel: z.enum(['voice', 'chat']),
  /**
   * `draft`: the plan as last saved; `published`: the version calls run now; a number: that
   * published version (a rollout's candidate, or an older one). One never published answers
   * `plan_version_not_found`.
   */
  version: z.union([z.enum(['draft', 'published']), z.number().int().positive().max(maxId)]).default('draft'),
  caller: textOf(100).default('+15550000001'),
  called: textOf(100).default('+15550000002'),
  /** Variables set before the first block, as an outbound campaign would. */
  variables: z.record(z.string().max(100), variableValueSchema).refine((value) => Object.keys(value).length <= 100, 'at most 100 variables').optional(),
  /**
   * Begin at this block (a node id of the version run) instead of the one the start block leads
   * to: the panel's "test from this block". A block not in that version answers `start_node_not_found`.
   */
  start_node: planNodeSchema.shape.id.optional(),
  /**
   * Run "as if" at another time, or on a holiday, to try every branch of a date range now: the
   * `date_range` blocks read `at` (moving on from it as the real clock does) and, with `holiday`,
   * take their holiday exit. Nothing else changes: the tenant's schedules and holidays, timeouts,
   * the report's times. `started` answers the time used.
   */
  as_if: z.strictObject({ at: instantSchema.optional(), holiday: z.boolean().default(false) }).optional(),
  /**
   * Voice only: the plan calls first (docs/simulator.md, "An outbound call"). `to` is the number to
   * call as a person types it; `callee` is what happens at the other end. Answered, the plan runs
   * with `answered_by` set and the report says `direction: outbound`; otherwise the run ends at once
   * with the dial status, and the plan never runs.
   */
  outbound: z.strictObject({ to: textOf(100).min(1), callee: z.enum(simulatorCallees) }).optional(),
}).refine((frame) => frame.outbound === undefined || frame.channel === 'voice', { message: 'an outbound test is a voice call', path: ['outbound'] });

const inputFrames = [
  z.strictObject({ type: z.literal('digits'), id: frameIdSchema, digits: z.string().regex(/^[0-9*#]{1,32}$/, 'keys 0-9, * and #, 1 to 32 of them') }),
  z.strictObject({ type: z.literal('speech'), id: frameIdSchema, text: textOf(4000) }),
  z.strictObject({ type: z.literal('message'), id: frameIdSchema, text: textOf(4096).min(1) }),
  /** Voice: the gather got no answer in time. Chat: the conversation stays idle past the plan's timeout. */
  z.strictObject({ type: z.literal('timeout'), id: frameIdSchema }),
  /** How the dialled destination answered: the simulator places no real call. */
  z.strictObject({ type: z.literal('dial_result'), id: frameIdSchema, status: z.enum(reportDialStatuses) }),
  /** The caller hangs up, or closes the chat. */
  z.strictObject({ type: z.literal('hangup'), id: frameIdSchema }),
] as const;

export const simulatorClientFrameSchema = z.discriminatedUnion('type', [startFrame, ...inputFrames]);

/** A frame as the client writes it (defaults left out). */
export type SimulatorClientFrame = z.input<typeof simulatorClientFrameSchema>;
/** A frame as the server reads it, defaults filled in. */
export type SimulatorFrame = z.output<typeof simulatorClientFrameSchema>;
export type SimulatorStartFrame = Extract<SimulatorFrame, { type: 'start' }>;
export type SimulatorInputFrame = Exclude<SimulatorFrame, SimulatorStartFrame>;

/**
 * What the server sends for each input, in this order: `node`, `exit` and `action` frames as the
 * plan runs, `ended` when the session ended, and `turn` last.
 */
export type SimulatorServerFrame =
  /** A session began (answer to `start`); the frames of its first turn follow. */
  | {
      type: 'started';
      session_id: string;
      plan_id: number;
      channel: 'voice' | 'chat';
      version: 'draft' | 'published' | number;
      /** A run "as if": the instant its date ranges read as it began (UTC), and whether as on a holiday. */
      as_if?: { at: string; holiday: boolean };
      /** An outbound test call: the number called (E.164) and what its callee does. */
      outbound?: { to: string; callee: SimulatorCallee };
    }
  /** The session entered a block. */
  | { type: 'node'; event_id: string; node: PathEntry }
  /** The session left a block by `node.exit`. */
  | { type: 'exit'; event_id: string; node: PathEntry }
  /** What the plan does: say, play, gather, dial, reply, hangup... */
  | { type: 'action'; event_id: string; action: Action }
  /**
   * The input was applied and stored. `ignored`: the session had no use for it. `duplicate`: a
   * frame with this id was applied before; nothing ran again.
   */
  | { type: 'turn'; event_id: string; session_id: string; revision: number; status: 'waiting' | 'ended'; ignored: boolean; duplicate: boolean }
  /**
   * The frames of `event_id` since its last `turn` frame are void: another server instance
   * changed the session meanwhile, and the input runs again on what it left.
   */
  | { type: 'discarded'; event_id: string }
  /** The session ended; its call report (kept as a test session's). */
  | { type: 'ended'; event_id: string; session_id: string; report: CallReportRecord }
  /** The frame `event_id` (null when it could not be read) was refused, with the API's error body. */
  | { type: 'error'; event_id: string | null; error: ApiErrorBody['error'] };
