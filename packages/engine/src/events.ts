/** What happens to a session, as the channel adapters report it (blocks.md, "The session"). */
import type { DialStatus } from './session.ts';

/** Why an outbound chat's first message did not reach the customer (FailureCode). */
export type UndeliveredCode = 'outside_customer_window' | 'reengagement_needed' | 'message_undelivered';

export type EngineEvent =
  | { type: 'start' }
  /** Keys the caller pressed (voice); one gather's worth. */
  | { type: 'digits'; digits: string }
  /** What the caller said, transcribed by the voice provider. */
  | { type: 'speech'; text: string }
  /** A chat message from the user. */
  | { type: 'message'; text: string }
  /**
   * Voice: the gather the session waits on got no input in time. Chat: the conversation stayed
   * idle for the plan's `session_timeout_min`, which ends it.
   */
  | { type: 'timeout' }
  /** How a `dial` ended (Twilio's `DialCallStatus`, Asterisk's `DIALSTATUS`, as mapped by the adapter). */
  /** `resolved`: the person who took the chat ended it there (docs/handoff.md, "Outcomes"). */
  | { type: 'dial_result'; status: DialStatus; resolved?: boolean }
  /** A recording started by a `recording` block is available (often after the call ended). */
  | { type: 'recording_ready'; url: string; duration_s: number }
  /**
   * Voice: the channel could not play a prompt of the last turn (AGI: the PBX could not fetch its
   * URL), the `action`-th of that turn's actions; the call goes on. The session's failure records it
   * for the operator (code `prompt_unplayable`), naming the block whose prompt it was.
   */
  | { type: 'prompt_failed'; action: number; message: string }
  /**
   * Voice: the channel's speech engine could not be had for the gather that is the `action`-th of
   * the last turn's actions (AGI: `SPEECH CREATE` answered 0, no such engine on the PBX). The
   * gather then hears nothing (its timeout follows); the session's failure records it for the
   * operator (code `speech_engine_unavailable`), naming the gather's block. The call goes on.
   */
  | { type: 'speech_unavailable'; action: number; message: string }
  /**
   * An outbound call's machine detection answered after the plan started (Twilio's asynchronous
   * AMD, docs/outbound.md): the variable `answered_by` is set for the blocks that follow; nothing
   * else moves.
   */
  | { type: 'answered_by'; answered_by: 'human' | 'machine' | 'unknown' }
  /** A recording started by a `recording` block did not come to exist (the channel's reason, as `error`). */
  | { type: 'recording_failed'; error: string }
  /**
   * The caller hung up, or the chat was closed by the user. `actions_started`: how many of the
   * last turn's actions the channel had started when the caller left (AGI sends them one by one);
   * blocks whose actions come after those are left out of the path, as the caller never reached them.
   */
  | { type: 'hangup'; actions_started?: number }
  /**
   * Chat: the channel could not deliver the conversation's opening message (an outbound chat,
   * docs/outbound.md, "WhatsApp"): WhatsApp's customer window was closed to a free-form message, or
   * Meta refused it. The session ends at once, failed, its dial status `failed`, its failure `code`.
   */
  | { type: 'undelivered'; code: UndeliveredCode; message: string }
  /**
   * The host gives up on a session whose end never arrived (a voice call whose provider never
   * told its end): it ends `expired`, hang-up cause `end_not_received`, at `at` (its last sign of
   * life, so that its duration is not the time the host waited). Runs without the plan: nothing
   * is said to anybody.
   */
  | { type: 'expire'; at: string };

/** The events a block waiting for input receives. */
export type InputEvent = Extract<EngineEvent, { type: 'digits' | 'speech' | 'message' | 'timeout' | 'dial_result' }>;
