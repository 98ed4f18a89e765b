import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { planLanguages } from '@voxplan/contracts/voices';
import type { Action } from '@voxplan/engine';
import { describe, expect, test } from 'vitest';
import type { TurnOutcome } from '../../modules/sessions/sessions.service.ts';
import { type CallbackUrls, dialStatusOf, outcomeTwiml } from './twiml.ts';

const urls: CallbackUrls = {
  voice: (kind, session, revision) => `https://voice.example.com/voice?session=${session}&rev=${revision}&on=${kind}`,
  status: (kind, session, revision) => `https://voice.example.com/status?session=${session}&rev=${revision}&on=${kind}`,
};

function outcome(actions: Action[], status: 'waiting' | 'ended' = 'waiting'): TurnOutcome {
  return { session_id: 'CA1', revision: 3, status, actions, resumed: null, entered: [], ignored: false, duplicate: false, report: null };
}

const body = (twiml: string) => twiml.replace(/^<\?xml[^>]*\?>/, '');

describe('TwiML of the engine actions', () => {
  test('ignore_call rejects the call unanswered instead of hanging up', () => {
    expect(body(outcomeTwiml(outcome([{ type: 'hangup', cause: 'rejected', reject: true }], 'ended'), urls))).toBe('<Response><Reject/></Response>');
  });

  test('send_dtmf plays the digits; a tel: destination dials a Number; speech is gathered in the block language with its hints', () => {
    const twiml = body(
      outcomeTwiml(
        outcome([
          { type: 'send_dtmf', digits: '12w#' },
          { type: 'say', text: 'Say your name', language: 'pt-BR' },
          { type: 'gather', input: 'speech', timeout_s: 5, language: 'pt-BR', hints: 'Ana, Bruno' },
        ]),
        urls,
      ),
    );
    expect(twiml).toBe(
      '<Response><Play digits="12w#"/>' +
        '<Gather input="speech" timeout="5" action="https://voice.example.com/voice?session=CA1&amp;rev=3&amp;on=gather" method="POST" actionOnEmptyResult="true" language="pt-BR" hints="Ana, Bruno" speechTimeout="auto">' +
        '<Say language="pt-BR" voice="Polly.Camila">Say your name</Say></Gather></Response>',
    );
    const dial = body(outcomeTwiml(outcome([{ type: 'dial', destination_id: 1, name: 'Desk', uri: 'tel:+5511999990000', timeout_s: 20 }]), urls));
    expect(dial).toBe('<Response><Dial action="https://voice.example.com/voice?session=CA1&amp;rev=3&amp;on=dial" method="POST" timeout="20"><Number>+5511999990000</Number></Dial></Response>');
  });

  test('a session that ended without a hangup action still hangs up; SMS records are not spoken', () => {
    const twiml = body(outcomeTwiml(outcome([{ type: 'send_message', channel: 'sms', to: '+1', text: 'hi', status: 'sent' }], 'ended'), urls));
    expect(twiml).toBe('<Response><Hangup/></Response>');
  });

  test("DialCallStatus as the destination block's outcomes", () => {
    expect(['completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled', undefined].map(dialStatusOf)).toEqual(['answer', 'answer', 'busy', 'no_answer', 'failed', 'cancel', 'failed']);
  });
});

describe('the voices contract against the twilio library', () => {
  // The library's TwiML types list the voices and languages `<Say>` takes, generated from Twilio's
  // own definitions (https://www.twilio.com/docs/voice/twiml/say/text-speech): every voice the
  // editor offers must be one of them, for the language it is offered in.
  const declarations = fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('twilio/package.json')), 'lib/twiml/VoiceResponse.d.ts'), 'utf8');
  const listed = (type: string) => new Set([...(new RegExp(`type ${type} = ([^;]+);`).exec(declarations)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((match) => match[1]!));

  test('every language and voice of the list is one Twilio knows, each Google voice named for its language', () => {
    const voices = listed('SayVoice');
    const languages = listed('SayLanguage');
    expect(voices.size).toBeGreaterThan(100);
    for (const language of planLanguages) {
      expect(languages.has(language.tag), language.tag).toBe(true);
      expect(language.twilio.length, language.tag).toBeGreaterThan(0);
      for (const voice of language.twilio) {
        expect(voices.has(voice.id), voice.id).toBe(true);
        if (voice.id.startsWith('Google.')) expect(voice.id.startsWith(`Google.${language.tag}-`), voice.id).toBe(true);
      }
    }
  });

  test('a prompt whose plan chose no voice, or one of another language, gets the language’s first voice', () => {
    const said = (language: string, twilio?: string) => body(outcomeTwiml(outcome([{ type: 'say', text: 'x', language, ...(twilio && { voices: { twilio } }) }]), urls));
    expect(said('en-GB')).toBe('<Response><Say language="en-GB" voice="Polly.Amy">x</Say></Response>');
    expect(said('en-GB', 'Polly.Brian-Neural')).toBe('<Response><Say language="en-GB" voice="Polly.Brian-Neural">x</Say></Response>');
    expect(said('en-GB', 'Polly.Camila')).toBe('<Response><Say language="en-GB" voice="Polly.Amy">x</Say></Response>');
  });
});
