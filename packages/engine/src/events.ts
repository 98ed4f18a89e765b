/** What happens to a session, as the channel adapters report it (blocks.md, "The session"). */
import type { DialStatus } from './session.ts';

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
  | { type: 'dial_result'; status: DialStatus }
  /** A recording started by a `recording` block is available (often after the call ended). */
  | { type: 'recording_ready'; url: string; duration_s: number }
  /** The caller hung up, or the chat was closed by the user. */
  | { type: 'hangup' }
  /**
   * The host gives up on a session whose end never arrived (a voice call whose provider never
   * told its end): it ends `expired`, hang-up cause `end_not_received`, at `at` (its last sign of
   * life, so that its duration is not the time the host waited). Runs without the plan: nothing
   * is said to anybody.
   */
  | { type: 'expire'; at: string };

/** The events a block waiting for input receives. */
export type InputEvent = Extract<EngineEvent, { type: 'digits' | 'speech' | 'message' | 'timeout' | 'dial_result' }>;
