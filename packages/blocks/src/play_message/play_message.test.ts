import { expect, test } from 'vitest';
import { validatePlanDocument } from '../plan/validate.ts';
import { planAround, runPlan } from '../test-helpers.ts';

const world = { audios: [{ id: 3, url: '/api/v1/audios/3/file' }] };

test('voice speaks the text, with variables filled in', async () => {
  const run = await runPlan(planAround({ id: 'msg', type: 'play_message', data: { voice_text: 'Hello {{caller}}', chat_text: 'Hi' } }, ['next']));
  expect(run.actions[0]).toEqual({ type: 'say', text: 'Hello +5511999990000' });
  expect(run.exitOf('msg')).toBe('next');
});

test('voice plays the audio when text to speech is off; a removed audio falls back to the text', async () => {
  const data = { text_to_speech: false, audio_id: 3, voice_text: 'Fallback' };
  expect((await runPlan(planAround({ id: 'msg', type: 'play_message', data }, ['next']), { world })).actions[0]).toEqual({
    type: 'play',
    audio_id: 3,
    url: '/api/v1/audios/3/file',
  });
  expect((await runPlan(planAround({ id: 'msg', type: 'play_message', data }, ['next']))).actions[0]).toEqual({ type: 'say', text: 'Fallback' });
});

test('chat sends the chat text, or the voice text when synced or when there is no chat text', async () => {
  const data = { voice_text: 'Spoken', chat_text: 'Written' };
  expect((await runPlan(planAround({ id: 'msg', type: 'play_message', data }, ['next']), { channel: 'chat' })).actions[0]).toEqual({ type: 'reply', text: 'Written' });
  const synced = planAround({ id: 'msg', type: 'play_message', data }, ['next'], { settings: { sync_with_voice_text: true } });
  expect((await runPlan(synced, { channel: 'chat' })).actions[0]).toEqual({ type: 'reply', text: 'Spoken' });
  const spokenOnly = planAround({ id: 'msg', type: 'play_message', data: { voice_text: 'Spoken' } }, ['next']);
  expect((await runPlan(spokenOnly, { channel: 'chat' })).actions[0]).toEqual({ type: 'reply', text: 'Spoken' });
});

test('an audio prompt must name its audio', () => {
  const result = validatePlanDocument(planAround({ id: 'msg', type: 'play_message', data: { text_to_speech: false } }, ['next']));
  expect(result.errors).toEqual([expect.objectContaining({ node_id: 'msg', path: 'audio_id' })]);
});

test('a prompt speaks the plan’s language with its voices, else the session’s (the tenant’s); a block in another language leaves the voices to that language', async () => {
  const settings = { language: 'pt-BR', twilio_voice: 'Polly.Camila-Neural', tts_voice: 'f2' };
  const plan = (data: Record<string, unknown>) => planAround({ id: 'msg', type: 'play_message', data: { voice_text: 'Olá', ...data } }, ['next'], { settings });
  expect((await runPlan(plan({}), { init: { language: 'en-US' } })).actions[0]).toEqual({
    type: 'say',
    text: 'Olá',
    language: 'pt-BR',
    voices: { twilio: 'Polly.Camila-Neural', tts: 'f2' },
  });
  expect((await runPlan(plan({ language: 'en-US' }))).actions[0]).toEqual({ type: 'say', text: 'Olá', language: 'en-US' });
  const tenants = planAround({ id: 'msg', type: 'play_message', data: { voice_text: 'Hi' } }, ['next']);
  expect((await runPlan(tenants, { init: { language: 'es-MX' } })).actions[0]).toEqual({ type: 'say', text: 'Hi', language: 'es-MX' });
});
