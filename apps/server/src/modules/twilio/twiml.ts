/**
 * The engine's channel-neutral actions as TwiML, written with the official library's VoiceResponse
 * (docs/channels-twilio.md). Everything here is a pure function of a turn's outcome, so a callback
 * Twilio retries (answered with the stored outcome) gets the very same document.
 */
import type { DialStatus } from '@voxplan/engine';
import twilio from 'twilio';
import type { TurnOutcome } from '../sessions/sessions.service.ts';
import { isGatherPrompt, type Prompt, promptsBefore } from '../sessions/voice-prompts.ts';

type VoiceResponse = twilio.twiml.VoiceResponse;
type Gather = ReturnType<VoiceResponse['gather']>;

/** What a callback answers: a gather's keys or speech, a dial's end, a recording made. */
export type CallbackKind = 'gather' | 'dial' | 'recording';

/** The action URL of a callback: the session and the revision it answers carry the event's id. */
export interface CallbackUrls {
  voice(kind: 'gather' | 'dial', sessionId: string, revision: number): string;
  status(kind: 'recording', sessionId: string, revision: number): string;
}

// The library types language and voice as Twilio's lists; the plan's are free text Twilio checks.
type SayAttributes = NonNullable<Parameters<VoiceResponse['say']>[0]>;
type GatherAttributes = NonNullable<Parameters<VoiceResponse['gather']>[0]>;
const sayAttributes = (language?: string): SayAttributes => (language ? { language: language as SayAttributes['language'] } : {});

/** A destination's URI: `sip:`/`sips:` dials a SIP address, anything else (`tel:` or a bare number) a phone number. */
function dialTarget(uri: string): { kind: 'sip' | 'number'; address: string } {
  if (/^sips?:/i.test(uri)) return { kind: 'sip', address: uri };
  return { kind: 'number', address: uri.replace(/^tel:/i, '') };
}

/** Twilio's DialCallStatus as the destination block's outcome (its exits: answer, busy, no_answer, failed). */
export function dialStatusOf(dialCallStatus: string | undefined): DialStatus {
  switch (dialCallStatus) {
    case 'completed':
    case 'answered':
      return 'answer';
    case 'busy':
      return 'busy';
    case 'no-answer':
      return 'no_answer';
    case 'canceled':
      return 'cancel';
    default:
      return 'failed';
  }
}

function addPrompt(target: VoiceResponse | Gather, action: Prompt): void {
  if (action.type === 'say') target.say(sayAttributes(action.language), action.text);
  else target.play({}, action.url);
}

/** The TwiML answering a turn: its actions in order, then a hang-up if the session ended without one. */
export function outcomeTwiml(outcome: TurnOutcome, urls: CallbackUrls): string {
  const response = new twilio.twiml.VoiceResponse();
  const { session_id: sessionId, revision } = outcome;
  const actions = outcome.actions;
  let hungUp = false;
  for (let index = 0; index < actions.length; index += 1) {
    const action = actions[index]!;
    switch (action.type) {
      case 'say':
      case 'play': {
        // Speech and audio played before a gather go inside it, so the caller may answer without waiting for the prompt's end.
        if (!isGatherPrompt(actions, index)) addPrompt(response, action);
        break;
      }
      case 'gather': {
        const attributes: GatherAttributes = {
          input: [action.input],
          timeout: action.timeout_s,
          action: urls.voice('gather', sessionId, revision),
          method: 'POST',
          // Silence comes back too, as a timeout the engine retries or leaves by.
          actionOnEmptyResult: true,
        };
        if (action.max_digits !== undefined) attributes.numDigits = action.max_digits;
        if (action.language) attributes.language = action.language as GatherAttributes['language'];
        if (action.hints) attributes.hints = action.hints;
        if (action.input === 'speech') attributes.speechTimeout = 'auto';
        const gather = response.gather(attributes);
        for (const prompt of promptsBefore(actions, index)) addPrompt(gather, prompt);
        break;
      }
      case 'dial': {
        const dial = response.dial({ action: urls.voice('dial', sessionId, revision), method: 'POST', timeout: action.timeout_s });
        const target = dialTarget(action.uri);
        if (target.kind === 'sip') dial.sip(target.address);
        else dial.number(target.address);
        break;
      }
      case 'send_dtmf':
        response.play({ digits: action.digits });
        break;
      case 'record':
        // The rest of the call, in the background (the engine goes on); the file comes back as recording_ready.
        response.start().recording({
          recordingStatusCallback: urls.status('recording', sessionId, revision),
          recordingStatusCallbackMethod: 'POST',
          recordingStatusCallbackEvent: ['completed'],
        });
        break;
      case 'hangup':
        if (action.reject) response.reject();
        else response.hangup();
        hungUp = true;
        break;
      // Already sent by the send_message block through the Messaging port; chat only.
      case 'send_message':
      case 'reply':
        break;
    }
  }
  if (outcome.status === 'ended' && !hungUp) response.hangup();
  return response.toString();
}

/**
 * Said to a call the licence refuses (every line in use), in the tenant's language when it has one
 * (Portuguese for `pt…`), else English. Kept with the unknown-number message until the server has a
 * catalogue of system messages per language (issue 28).
 */
const LINES_BUSY = {
  en: { language: 'en-US', text: 'All our lines are busy. Please call again later. Goodbye.' },
  pt: { language: 'pt-BR', text: 'Todas as nossas linhas estão ocupadas. Por favor, ligue mais tarde. Até logo.' },
} as const;

export function linesBusyTwiml(language?: string): string {
  const message = language?.toLowerCase().startsWith('pt') ? LINES_BUSY.pt : LINES_BUSY.en;
  const response = new twilio.twiml.VoiceResponse();
  response.say({ language: message.language }, message.text);
  response.hangup();
  return response.toString();
}

/** Said to a call that reaches no plan: a number nobody has, or one whose plan cannot run. */
export function unavailableTwiml(): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say({ language: 'en-US' }, 'The number you have called is not in service. Goodbye.');
  response.hangup();
  return response.toString();
}
