import type { Action } from '@voxplan/engine';
import { describe, expect, test } from 'vitest';
import type { TurnOutcome } from '../sessions/sessions.service.ts';
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
        '<Say language="pt-BR">Say your name</Say></Gather></Response>',
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
