/**
 * A turn's channel-neutral actions as AGI commands (docs/channels-asterisk.md), sent in order on the
 * call's connection. What the caller does in answer (keys, speech, silence, how a dial ended,
 * hanging up) comes back as the engine event of the next turn.
 */
import { type Action, type DialStatus, type EngineEvent, defaultSpeechLanguage } from '@voxplan/engine';
import type { AgiConfig } from '../../config.ts';
import type { MediaUrls } from '../audios/media-urls.ts';
import { splitForSpeech } from '../audios/tts-jobs.ts';
import { isGatherPrompt, type Prompt, promptsBefore } from '../sessions/voice-prompts.ts';
import { type AgiConnection, type AgiReply, agiQuote } from './agi-connection.ts';

/** Asterisk's DIALSTATUS as the destination block's outcome; CONGESTION, CHANUNAVAIL and the rest have no word of their own. */
export function dialStatusOfAsterisk(dialStatus: string | null): DialStatus {
  switch (dialStatus?.toUpperCase()) {
    case 'ANSWER':
      return 'answer';
    case 'BUSY':
      return 'busy';
    case 'NOANSWER':
      return 'no_answer';
    case 'CANCEL':
      return 'cancel';
    case 'DONTCALL':
      return 'dont_call';
    case 'INVALIDARGS':
      return 'invalid_args';
    default:
      return 'failed';
  }
}

/** The Q.850 cause the Hangup application is given for the hangup block's cause. */
const hangupCauseCodes: Record<string, number> = { normal_clearing: 16, busy: 17, rejected: 21 };

/** Keys that interrupt a prompt played before a key gather (the caller need not wait for its end). */
const ESCAPE_DIGITS = '0123456789*#';

/**
 * Time limits of commands, beyond what the command itself waits for: long enough for a slow PBX,
 * short enough that a silent peer frees its call. A bridged call lasts as long as it lasts.
 */
export const COMMAND_MARGIN_MS = 15_000;
const PROMPT_LIMIT_MS = 10 * 60_000;
const BRIDGE_LIMIT_MS = 12 * 3600_000;

/** Asterisk's own command lines are read into a 2 KB buffer: a prompt's text is spoken in parts that fit. */
const SPEECH_PART_LENGTH = 250;

/** The signed URL a prompt's text is spoken at (media-urls.ts). */
export type AgiMedia = Pick<MediaUrls, 'speechUrl'>;

/** What running a turn's actions gave: the next turn's event, or none when the session ended. */
export type AgiTurnResult = { kind: 'event'; event: EngineEvent; eventId: string } | { kind: 'hungup' } | { kind: 'done' };

/** The call's state between turns: whether it was answered, the speech channel made, the recording started. */
export interface AgiCallState {
  answered: boolean;
  speechCreated: boolean;
  recording: { file: string; startedAt: number } | null;
  /** The caller hung up: nothing more is sent. */
  hungUp: boolean;
  /** How long past what a command waits for itself its reply may take. */
  commandMarginMs: number;
}

class CallerHungUp extends Error {}

/** Sends one command; a reply of -1 (or the HANGUP line) means the caller is gone. */
async function send(agi: AgiConnection, state: AgiCallState, line: string, waitMs: number): Promise<AgiReply> {
  const reply = await agi.command(line, waitMs + state.commandMarginMs);
  if (agi.hungUp || reply.code === 511 || reply.result === '-1') {
    state.hungUp = true;
    throw new CallerHungUp();
  }
  return reply;
}

async function answer(agi: AgiConnection, state: AgiCallState): Promise<void> {
  if (state.answered) return;
  await send(agi, state, 'ANSWER', 0);
  state.answered = true;
}

/** The URLs a prompt plays: an audio's signed URL, or speech in parts. */
function promptUrls(action: Prompt, media: AgiMedia): string[] {
  if (action.type === 'play') return [action.url];
  return splitForSpeech(action.text, SPEECH_PART_LENGTH).map((part) => media.speechUrl(part, action.language ?? defaultSpeechLanguage, action.voices?.tts));
}

/** Plays prompts; with `escapeDigits`, a key pressed stops them and is answered (else ''). */
async function playPrompts(agi: AgiConnection, state: AgiCallState, urls: string[], escapeDigits: string): Promise<string> {
  for (const url of urls) {
    const reply = await send(agi, state, `STREAM FILE ${agiQuote(url)} ${agiQuote(escapeDigits)}`, PROMPT_LIMIT_MS);
    // The result is the ASCII code of the key that stopped the prompt, 0 when it played to its end.
    const code = Number(reply.result);
    if (code > 0) return String.fromCharCode(code);
  }
  return '';
}

/** Keys after the first: each waits up to the gather's timeout; `#` ends the entry (it is not part of it). */
async function collectDigits(agi: AgiConnection, state: AgiCallState, first: string, timeoutMs: number, maxDigits: number | undefined): Promise<string> {
  if (first === '#') return '';
  let digits = first;
  while (maxDigits === undefined || digits.length < maxDigits) {
    const reply = await send(agi, state, `WAIT FOR DIGIT ${timeoutMs}`, timeoutMs);
    const code = Number(reply.result);
    if (!(code > 0)) break;
    const key = String.fromCharCode(code);
    if (key === '#') break;
    digits += key;
  }
  return digits;
}

/** Speech through Asterisk's speech API with the configured engine: the transcript, or '' for silence. */
async function recognise(agi: AgiConnection, state: AgiCallState, config: AgiConfig, promptUrl: string | undefined, timeoutMs: number): Promise<string> {
  if (!state.speechCreated) {
    await send(agi, state, `SPEECH CREATE ${agiQuote(config.speechEngine ?? '')}`, 0);
    state.speechCreated = true;
  }
  const reply = await send(agi, state, `SPEECH RECOGNIZE ${agiQuote(promptUrl ?? 'silence/1')} ${timeoutMs}`, timeoutMs + PROMPT_LIMIT_MS);
  if (reply.data === 'hangup') {
    state.hungUp = true;
    throw new CallerHungUp();
  }
  return reply.data === 'speech' ? (reply.fields.text0 ?? '').trim() : '';
}

/** `PJSIP/<endpoint>/<sip uri>` for a SIP destination, `Local/<number>@<context>` for a phone number. */
export function dialString(uri: string, config: AgiConfig): string {
  if (/^sips?:/i.test(uri)) return `PJSIP/${config.sipEndpoint}/${uri}`;
  const number = uri.replace(/^tel:/i, '').replace(/[-.()]/g, '').split(';')[0] ?? '';
  return `Local/${number}@${config.dialContext}`;
}

/**
 * Runs a turn's actions on the call. Prompts before a gather can be interrupted by a key; a gather
 * or a dial ends the turn with the event its answer makes (the engine waits on nothing else).
 */
export async function runAgiActions(
  agi: AgiConnection,
  state: AgiCallState,
  actions: readonly Action[],
  revision: number,
  context: { config: AgiConfig; media: AgiMedia; sessionId: string },
): Promise<AgiTurnResult> {
  const { config, media } = context;
  try {
    for (let index = 0; index < actions.length; index += 1) {
      const action = actions[index]!;
      switch (action.type) {
        case 'say':
        case 'play': {
          // Prompts right before a gather are played by the gather, which may cut them short.
          if (isGatherPrompt(actions, index)) break;
          await answer(agi, state);
          await playPrompts(agi, state, promptUrls(action, media), '');
          break;
        }
        case 'gather': {
          await answer(agi, state);
          const urls = promptsBefore(actions, index).flatMap((prompt) => promptUrls(prompt, media));
          const timeoutMs = action.timeout_s * 1000;
          const eventId = `gather:${revision}`;
          if (action.input === 'speech') {
            // Without a speech engine the PBX cannot listen: the block hears silence and takes its failure path.
            if (!config.speechEngine) {
              await playPrompts(agi, state, urls, '');
              return { kind: 'event', event: { type: 'timeout' }, eventId };
            }
            const text = await recognise(agi, state, config, urls.pop(), timeoutMs);
            return { kind: 'event', event: text === '' ? { type: 'timeout' } : { type: 'speech', text }, eventId };
          }
          const pressed = await playPrompts(agi, state, urls, ESCAPE_DIGITS);
          let digits: string;
          if (pressed === '') {
            const reply = await send(agi, state, `WAIT FOR DIGIT ${timeoutMs}`, timeoutMs);
            const code = Number(reply.result);
            digits = code > 0 ? await collectDigits(agi, state, String.fromCharCode(code), timeoutMs, action.max_digits) : '';
          } else {
            digits = await collectDigits(agi, state, pressed, timeoutMs, action.max_digits);
          }
          return { kind: 'event', event: digits === '' ? { type: 'timeout' } : { type: 'digits', digits }, eventId };
        }
        case 'dial': {
          await send(agi, state, `EXEC Dial ${agiQuote(`${dialString(action.uri, config)},${action.timeout_s}`)}`, BRIDGE_LIMIT_MS);
          const status = await send(agi, state, 'GET VARIABLE DIALSTATUS', 0);
          return { kind: 'event', event: { type: 'dial_result', status: dialStatusOfAsterisk(status.result === '1' ? status.data : null) }, eventId: `dial:${revision}` };
        }
        case 'send_dtmf':
          await answer(agi, state);
          // Twilio's `w` (half a second) is SendDTMF's `w` too.
          await send(agi, state, `EXEC SendDTMF ${agiQuote(action.digits)}`, action.digits.length * 1000);
          break;
        case 'record': {
          await answer(agi, state);
          const file = `voxplan-${context.sessionId}.${action.format}`;
          await send(agi, state, `EXEC MixMonitor ${agiQuote(file)}`, 0);
          state.recording = { file, startedAt: Date.now() };
          break;
        }
        case 'hangup':
          // Both answer -1 (the channel is gone), which is what was asked: not the caller hanging up.
          if (!agi.hungUp) {
            await agi.command(action.reject ? 'HANGUP' : `EXEC Hangup ${hangupCauseCodes[action.cause] ?? 16}`, state.commandMarginMs);
          }
          return { kind: 'done' };
        // Sent by the send_message block through the Messaging port; `reply` is chat only.
        case 'send_message':
        case 'reply':
          break;
      }
    }
    return { kind: 'done' };
  } catch (error) {
    if (error instanceof CallerHungUp) return { kind: 'hungup' };
    throw error;
  }
}
