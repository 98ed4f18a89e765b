/**
 * Channel-neutral actions (blocks.md, "The session"). Adapters turn them into TwiML, AGI
 * commands, WhatsApp messages or simulator frames, in the order given.
 */
import type { HangupCause, TranscriptEntry } from './session.ts';
import type { Value } from './values.ts';

export interface ReplyOption {
  /** What the user sends back (a button's id): the menu option's digits. */
  id: string;
  label: string;
}

/**
 * The language of prompts when neither the plan nor the host's session names one (the server
 * always gives the tenant's or its own: `SessionInit.language`).
 */
export const defaultSpeechLanguage = 'en-US';

/** The voices a prompt is spoken with, by way of speaking; absent: the channel's default for the language. */
export interface SpeechVoices {
  /** Twilio's `<Say voice>` (Polly or Google). */
  twilio?: string;
  /** The espeak-ng variant the server speaks with (Asterisk). */
  tts?: string;
}

export type Action =
  /**
   * Voice: speak the text (text to speech), in `language` (BCP 47). The engine fills in the plan's
   * language (else the session's) and, for a prompt in the plan's own language, the plan's voices.
   */
  | { type: 'say'; text: string; language?: string; voices?: SpeechVoices }
  /** Voice: play a stored audio. */
  | { type: 'play'; audio_id: number; url: string }
  /** Voice: collect keys or speech; the answer comes back as `digits`, `speech` or `timeout`. Speech is heard in `language`, filled in as a `say`'s. */
  | { type: 'gather'; input: 'dtmf' | 'speech'; timeout_s: number; max_digits?: number; language?: string; hints?: string }
  /**
   * Voice: dial the URI and bridge the call. Chat: hand the conversation, with its transcript
   * and variables, to the destination's URL. The outcome comes back as `dial_result`.
   */
  | {
      type: 'dial';
      destination_id: number;
      name: string;
      uri: string;
      timeout_s: number;
      transcript?: TranscriptEntry[];
      variables?: Record<string, Value>;
    }
  /** Voice: send tones (`w` is a half-second pause). */
  | { type: 'send_dtmf'; digits: string }
  /** Voice: record the rest of the call; the file comes back as `recording_ready`. */
  | { type: 'record'; format: 'wav' | 'mp3' }
  /**
   * A message the `send_message` block has already sent through the Messaging port (its exit
   * depends on the outcome). It is a record for the simulator and logs: adapters do not send it.
   */
  | {
      type: 'send_message';
      channel: 'sms' | 'whatsapp';
      to: string;
      text: string;
      status: 'sent' | 'failed';
      /** Why it failed (`outside_customer_window`, the provider's refusal…); the block's path entry names it too. */
      reason?: string;
      /** The WhatsApp template sent instead of the text, outside the customer window (the block's fallback). */
      template?: { name: string; language: string };
    }
  /**
   * A WhatsApp template the `whatsapp_template` block has already sent through the Templates port
   * (its exit depends on Meta's answer, as `send_message`'s does): a record for the simulator, the
   * transcript and logs; adapters do not send it. `text` is the template as the customer reads it,
   * `options` its quick-reply buttons. On other channels the block replies with the text instead.
   */
  | {
      type: 'template';
      name: string;
      language: string;
      text: string;
      options?: ReplyOption[];
      status: 'sent' | 'failed';
      reason?: string;
    }
  /**
   * Chat: a message to the user, with choices to offer as buttons or a list. `sent`: a block of
   * the same turn already sent it through a port, to keep the order of what the customer reads (a
   * WhatsApp template after it); adapters do not send it again.
   */
  | { type: 'reply'; text: string; options?: ReplyOption[]; sent?: true }
  /** End the call or the chat. `reject`: refuse the call without answering it. */
  | { type: 'hangup'; cause: HangupCause; reject?: boolean };
