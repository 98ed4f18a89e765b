/**
 * The engine's channel-neutral actions as TwiML (docs/channels-twilio.md), written as the official
 * library's VoiceResponse writes them (twiml-xml.ts, without its node tree). Everything here is a pure function of a turn's outcome, so a callback
 * Twilio retries (answered with the stored outcome) gets the very same document.
 */
import { twilioVoiceFor } from '@voxplan/contracts/voices';
import type { DialStatus, SpeechVoices } from '@voxplan/engine';
import type twilio from 'twilio';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import type { SystemMessage } from '../../modules/sessions/system-messages.ts';
import { isGatherPrompt, type Prompt, promptsBefore } from '../../modules/sessions/voice-prompts.ts';
import { TwimlDocument, type TwimlElement } from './twiml-xml.ts';

// The library's attribute types: Twilio's own lists of languages, voices and inputs.
type VoiceResponse = twilio.twiml.VoiceResponse;

/** What a callback answers: a gather's keys or speech, a dial's end, a recording made. */
export type CallbackKind = 'gather' | 'dial' | 'recording';

/** The action URL of a callback: the session and the revision it answers carry the event's id. */
export interface CallbackUrls {
  voice(kind: 'gather' | 'dial', sessionId: string, revision: number): string;
  status(kind: 'recording', sessionId: string, revision: number): string;
}

// The library types language and voice as Twilio's lists; ours come from the voices contract, checked when the plan is saved.
type SayAttributes = NonNullable<Parameters<VoiceResponse['say']>[0]>;
type GatherAttributes = NonNullable<Parameters<VoiceResponse['gather']>[0]>;

/**
 * `<Say language voice>`: the plan's Twilio voice when it speaks the prompt's language, else that
 * language's first voice of the list, since Twilio's own default ("man") speaks only English and a
 * voice of another language can make `<Say>` fail (https://www.twilio.com/docs/voice/twiml/say).
 */
function sayAttributes(language: string | undefined, voices?: SpeechVoices): SayAttributes {
  if (!language) return {};
  const voice = twilioVoiceFor(language, voices?.twilio);
  return { language: language as SayAttributes['language'], ...(voice && { voice: voice as SayAttributes['voice'] }) };
}

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

function addPrompt(target: TwimlElement, action: Prompt): void {
  if (action.type === 'say') target.add('Say', sayAttributes(action.language, action.voices), action.text);
  else target.add('Play', {}, action.url);
}

/** The TwiML answering a turn: its actions in order, then a hang-up if the session ended without one. */
export function outcomeTwiml(outcome: TurnOutcome, urls: CallbackUrls): string {
  const response = new TwimlDocument();
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
        const gather = response.add('Gather', attributes);
        for (const prompt of promptsBefore(actions, index)) addPrompt(gather, prompt);
        break;
      }
      case 'dial': {
        const dial = response.add('Dial', { action: urls.voice('dial', sessionId, revision), method: 'POST', timeout: action.timeout_s });
        const target = dialTarget(action.uri);
        dial.add(target.kind === 'sip' ? 'Sip' : 'Number', {}, target.address);
        break;
      }
      case 'send_dtmf':
        response.add('Play', { digits: action.digits });
        break;
      case 'record':
        // The rest of the call, in the background (the engine goes on); the file comes back as recording_ready.
        response.add('Start').add('Recording', {
          recordingStatusCallback: urls.status('recording', sessionId, revision),
          recordingStatusCallbackMethod: 'POST',
          recordingStatusCallbackEvent: ['completed'],
        });
        break;
      case 'hangup':
        response.add(action.reject ? 'Reject' : 'Hangup');
        hungUp = true;
        break;
      // Already sent by the send_message block through the Messaging port; chat only.
      case 'send_message':
      case 'reply':
        break;
    }
  }
  if (outcome.status === 'ended' && !hungUp) response.add('Hangup');
  return response.toString();
}

/** A system message (a number not in service, a plan that cannot start), then the hang-up. */
export function systemMessageTwiml(message: SystemMessage): string {
  const response = new TwimlDocument();
  response.add('Say', sayAttributes(message.language), message.text);
  response.add('Hangup');
  return response.toString();
}
