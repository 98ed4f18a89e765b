/**
 * A turn's channel-neutral actions as AGI commands (docs/channels-asterisk.md), sent in order on the
 * call's connection. What the caller does in answer (keys, speech, silence, how a dial ended,
 * hanging up) comes back as the engine event of the next turn.
 */
import { type Action, type DialStatus, type EngineEvent, defaultSpeechLanguage } from '@voxplan/engine';
import type { AgiConfig } from '../../config.ts';
import type { MediaUrls } from '../../modules/audios/media-urls.ts';
import { splitForSpeech } from '../../modules/audios/tts-jobs.ts';
import { isGatherPrompt, isPrompt, type Prompt, promptsBefore } from '../../modules/sessions/voice-prompts.ts';
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

/**
 * What running a turn's actions gave: the next turn's event, or none when the session ended. A
 * hang-up says how many of the turn's actions had been started (the path ends where the caller was).
 */
export type AgiTurnResult = { kind: 'event'; event: EngineEvent; eventId: string } | { kind: 'hungup'; actionsStarted: number } | { kind: 'done' };

/** A prompt the PBX could not play: its URL and the index of the turn's action it was, for the caller of runAgiActions to tell the operator. */
export type UnplayablePrompt = (url: string, action: number) => Promise<void>;

/** The PBX has no speech engine of the configured name: the index of the gather that needed it, for the caller of runAgiActions to tell the operator. */
export type SpeechUnavailable = (engine: string, action: number) => Promise<void>;

/** The call's state between turns: whether it was answered, the speech channel made, the recording started. */
export interface AgiCallState {
  answered: boolean;
  /** The call's speech object: made (`SPEECH CREATE` answered 1), refused (answered 0: no such engine, not asked again), or not yet asked. */
  speech?: 'created' | 'refused';
  /** The language last given to the speech engine (`SPEECH SET language`), so that it is sent only when it changes. */
  speechLanguage?: string;
  /** The WAV file MixMonitor writes, and the format the block asked for. */
  recording: { file: string; format: 'wav' | 'mp3'; startedAt: number } | null;
  /** The caller hung up: nothing more is sent. */
  hungUp: boolean;
  /** How long past what a command waits for itself its reply may take. */
  commandMarginMs: number;
}

class CallerHungUp extends Error {}

/**
 * Whether the caller is still on the line after a command answered -1. Asterisk answers -1 both
 * when the caller hangs up and when the command failed on a live channel (a prompt it could not
 * fetch; Dial, whenever a bridged call ends). A hung-up channel is announced by a `HANGUP` line
 * right after the reply, and `CHANNEL STATUS` does not run on it (511); a live one answers its
 * state (6, up).
 */
async function callerStillThere(agi: AgiConnection, state: AgiCallState): Promise<boolean> {
  if (agi.hungUp) return false;
  const reply = await agi.command('CHANNEL STATUS', state.commandMarginMs);
  return !agi.hungUp && reply.code === 200 && Number(reply.result) >= 0;
}

/** Sends one command; the HANGUP line, a 511, or a -1 on a channel no longer there means the caller is gone. A -1 on a live channel is returned. */
async function send(agi: AgiConnection, state: AgiCallState, line: string, waitMs: number): Promise<AgiReply> {
  const reply = await agi.command(line, waitMs + state.commandMarginMs);
  if (agi.hungUp || reply.code === 511 || (reply.result === '-1' && !(await callerStillThere(agi, state)))) {
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

/** A URL to play, and the index of the turn's action it is (part) of. */
interface PromptPart {
  url: string;
  action: number;
}

/** The URLs a prompt plays: an audio's signed URL, or speech in parts. */
function promptUrls(prompt: Prompt, action: number, media: AgiMedia): PromptPart[] {
  if (prompt.type === 'play') return [{ url: prompt.url, action }];
  return splitForSpeech(prompt.text, SPEECH_PART_LENGTH).map((part) => ({ url: media.speechUrl(part, prompt.language ?? defaultSpeechLanguage, prompt.voices?.tts), action }));
}

/** How far a turn got: how many of its actions were started (a hang-up ends the path there). */
interface Progress {
  started: number;
  readonly onUnplayable: UnplayablePrompt;
}

/** Plays prompts; with `escapeDigits`, a key pressed stops them and is answered (else ''). */
async function playPrompts(agi: AgiConnection, state: AgiCallState, parts: PromptPart[], escapeDigits: string, progress: Progress): Promise<string> {
  for (const { url, action } of parts) {
    progress.started = Math.max(progress.started, action + 1);
    const reply = await send(agi, state, `STREAM FILE ${agiQuote(url)} ${agiQuote(escapeDigits)}`, PROMPT_LIMIT_MS);
    // -1 with the caller still there: the PBX could not fetch or play it. The caller heard nothing
    // of it, and the plan goes on (a menu still waits for its key).
    if (reply.result === '-1') {
      await progress.onUnplayable(url, action);
      continue;
    }
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

/**
 * The call's speech object, made once with the configured engine; false when the PBX has none of
 * that name (`SPEECH CREATE` answers 0: res_agi.c's handle_speechcreate when ast_speech_new
 * finds no engine). The gather's language goes to the engine with `SPEECH SET language <tag>`, the
 * setting Asterisk's own external engine (res_speech_aeap) passes on to its application as
 * `language`; engines without such a setting ignore it, and Asterisk answers 1 either way.
 */
async function speechReady(agi: AgiConnection, state: AgiCallState, engine: string, language: string): Promise<boolean> {
  if (state.speech === undefined) {
    const created = await send(agi, state, `SPEECH CREATE ${agiQuote(engine)}`, 0);
    state.speech = created.result === '1' ? 'created' : 'refused';
  }
  if (state.speech === 'refused') return false;
  if (state.speechLanguage !== language) {
    await send(agi, state, `SPEECH SET language ${agiQuote(language)}`, 0);
    state.speechLanguage = language;
  }
  return true;
}

/** Speech through Asterisk's speech API, the prompt played by the recogniser (speech cuts it short): the transcript, or '' for silence. */
async function recognise(agi: AgiConnection, state: AgiCallState, promptUrl: string | undefined, timeoutMs: number): Promise<string> {
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
  context: { config: AgiConfig; media: AgiMedia; sessionId: string; onUnplayable: UnplayablePrompt; onSpeechUnavailable?: SpeechUnavailable },
): Promise<AgiTurnResult> {
  const { config, media } = context;
  const progress: Progress = { started: 0, onUnplayable: context.onUnplayable };
  try {
    for (let index = 0; index < actions.length; index += 1) {
      const action = actions[index]!;
      // Prompts before a gather count as started when they play (playPrompts).
      if (!(isPrompt(action) && isGatherPrompt(actions, index))) progress.started = index + 1;
      switch (action.type) {
        case 'say':
        case 'play': {
          // Prompts right before a gather are played by the gather, which may cut them short.
          if (isGatherPrompt(actions, index)) break;
          await answer(agi, state);
          await playPrompts(agi, state, promptUrls(action, index, media), '', progress);
          break;
        }
        case 'gather': {
          await answer(agi, state);
          const prompts = promptsBefore(actions, index);
          const urls = prompts.flatMap((prompt, position) => promptUrls(prompt, index - prompts.length + position, media));
          const timeoutMs = action.timeout_s * 1000;
          const eventId = `gather:${revision}`;
          if (action.input === 'speech') {
            // Without a speech engine the PBX cannot listen: the block hears silence and takes its failure path.
            if (!config.speechEngine) {
              await playPrompts(agi, state, urls, '', progress);
              return { kind: 'event', event: { type: 'timeout' }, eventId };
            }
            // SPEECH RECOGNIZE plays one prompt: those before its last are played first, in order.
            const last = urls.pop();
            await playPrompts(agi, state, urls, '', progress);
            const firstAsked = state.speech === undefined;
            if (!(await speechReady(agi, state, config.speechEngine, action.language ?? defaultSpeechLanguage))) {
              // Told once per call; the caller still hears the prompt, then the block's silence.
              if (firstAsked) await context.onSpeechUnavailable?.(config.speechEngine, index);
              await playPrompts(agi, state, last ? [last] : [], '', progress);
              return { kind: 'event', event: { type: 'timeout' }, eventId };
            }
            if (last) progress.started = Math.max(progress.started, last.action + 1);
            const text = await recognise(agi, state, last?.url, timeoutMs);
            return { kind: 'event', event: text === '' ? { type: 'timeout' } : { type: 'speech', text }, eventId };
          }
          const pressed = await playPrompts(agi, state, urls, ESCAPE_DIGITS, progress);
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
          // Dial answers -1 whenever a bridged call ends (the caller may well still be there) and
          // when the caller hangs up: DIALSTATUS says how the dial went either way (GET VARIABLE
          // runs on a hung-up channel too), and a caller gone afterwards ends the session after it.
          const dialed = await agi.command(`EXEC Dial ${agiQuote(`${dialString(action.uri, config)},${action.timeout_s}`)}`, BRIDGE_LIMIT_MS + state.commandMarginMs);
          if (agi.hungUp || dialed.code === 511 || (dialed.result === '-1' && !(await callerStillThere(agi, state)))) state.hungUp = true;
          const status = await agi.command('GET VARIABLE DIALSTATUS', state.commandMarginMs);
          const dialStatus = status.code === 200 && status.result === '1' ? status.data : null;
          if (state.hungUp && !dialStatus) throw new CallerHungUp();
          return { kind: 'event', event: { type: 'dial_result', status: dialStatusOfAsterisk(dialStatus) }, eventId: `dial:${revision}` };
        }
        case 'send_dtmf':
          await answer(agi, state);
          // Twilio's `w` (half a second) is SendDTMF's `w` too.
          await send(agi, state, `EXEC SendDTMF ${agiQuote(action.digits)}`, action.digits.length * 1000);
          break;
        case 'record': {
          await answer(agi, state);
          // Asterisk writes WAV but no MP3 (its mp3 module only reads): an MP3 block is recorded
          // in WAV and converted by the server when the call is over (agi-server.ts).
          const file = `voxplan-${context.sessionId}.wav`;
          await send(agi, state, `EXEC MixMonitor ${agiQuote(file)}`, 0);
          state.recording = { file, format: action.format, startedAt: Date.now() };
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
    if (error instanceof CallerHungUp) return { kind: 'hungup', actionsStarted: progress.started };
    throw error;
  }
}
