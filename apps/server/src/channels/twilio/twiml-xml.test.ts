import twilio from 'twilio';
import { describe, expect, test } from 'vitest';
import { TwimlDocument } from './twiml-xml.ts';

// Twilio reads what the library writes; twiml-xml.ts must write the very same bytes for every verb
// and text twiml.ts gives it, so the library's VoiceResponse is the reference here.
const awkward = [
  '',
  'plain',
  'Tom & Jerry <b> "quoted" \'single\' > end',
  'tab\there, line\nbreak, return\r end',
  'olá, ação, 日本語, emoji 😀',
  '&amp; already escaped',
  'https://example.com/a.mp3?x=1&y=2',
];

describe('TwiML written without the library', () => {
  test.each(awkward)('Say, Play and Hangup with %j', (text) => {
    const library = new twilio.twiml.VoiceResponse();
    library.say({ language: 'pt-BR', voice: 'Polly.Camila' }, text);
    library.say({}, text);
    library.play({}, text);
    library.play({ digits: text === '' ? '1' : '12w#' });
    library.hangup();
    const ours = new TwimlDocument();
    ours.add('Say', { language: 'pt-BR', voice: 'Polly.Camila' }, text);
    ours.add('Say', {}, text);
    ours.add('Play', {}, text);
    ours.add('Play', { digits: text === '' ? '1' : '12w#' });
    ours.add('Hangup');
    expect(ours.toString()).toBe(library.toString());
  });

  test.each(awkward)('Gather, Dial, Start and Reject with attributes %j', (value) => {
    const library = new twilio.twiml.VoiceResponse();
    const gather = library.gather({ input: ['dtmf', 'speech'], timeout: 5, action: `https://h/v?a=1&b=${value}`, method: 'POST', actionOnEmptyResult: true, numDigits: 1, hints: value });
    gather.say({ language: 'en-US' }, value);
    gather.play({}, 'https://h/a.mp3');
    library.gather({ input: ['dtmf'], timeout: 0, action: 'x', method: 'POST', actionOnEmptyResult: true });
    library.dial({ action: value, method: 'POST', timeout: 20 }).number(value || '+15550000000');
    library.dial({ action: 'y', method: 'POST', timeout: 30 }).sip('sip:desk@example.com');
    library.start().recording({ recordingStatusCallback: `s?x=${value}`, recordingStatusCallbackMethod: 'POST', recordingStatusCallbackEvent: ['completed'] });
    library.reject();
    const ours = new TwimlDocument();
    const ourGather = ours.add('Gather', { input: ['dtmf', 'speech'], timeout: 5, action: `https://h/v?a=1&b=${value}`, method: 'POST', actionOnEmptyResult: true, numDigits: 1, hints: value });
    ourGather.add('Say', { language: 'en-US' }, value);
    ourGather.add('Play', {}, 'https://h/a.mp3');
    ours.add('Gather', { input: ['dtmf'], timeout: 0, action: 'x', method: 'POST', actionOnEmptyResult: true });
    ours.add('Dial', { action: value, method: 'POST', timeout: 20 }).add('Number', {}, value || '+15550000000');
    ours.add('Dial', { action: 'y', method: 'POST', timeout: 30 }).add('Sip', {}, 'sip:desk@example.com');
    ours.add('Start').add('Recording', { recordingStatusCallback: `s?x=${value}`, recordingStatusCallbackMethod: 'POST', recordingStatusCallbackEvent: ['completed'] });
    ours.add('Reject');
    expect(ours.toString()).toBe(library.toString());
  });

  test('an empty response, and attributes left undefined', () => {
    expect(new TwimlDocument().toString()).toBe(new twilio.twiml.VoiceResponse().toString());
    const library = new twilio.twiml.VoiceResponse();
    library.say({ language: undefined, voice: undefined }, 'x');
    const ours = new TwimlDocument();
    ours.add('Say', { language: undefined, voice: undefined }, 'x');
    expect(ours.toString()).toBe(library.toString());
  });

  test('a character XML cannot hold in spoken text is refused, as the library refuses it', () => {
    expect(() => new twilio.twiml.VoiceResponse().say({}, 'bell \u0007')).toThrow(/Invalid character/);
    expect(() => new TwimlDocument().add('Say', {}, 'bell \u0007')).toThrow(/Invalid character/);
  });
});
