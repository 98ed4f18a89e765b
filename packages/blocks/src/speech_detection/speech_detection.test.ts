import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const data = {
  voice_text: 'Tell me your name and city',
  variables: [
    { name: 'name', description: 'first name' },
    { name: 'city', description: 'city' },
  ],
  max_retries: 1,
  retry_text: 'Sorry, once more please.',
  transcription_prompt: 'names of Brazilian cities',
  language: 'pt-BR',
};
const exits = ['success', 'failed'];
const plan = planAround({ id: 'ask', type: 'speech_detection', data }, exits);

test('voice: asks, gathers speech with the language and hints, and fills the variables from the AI', async () => {
  const run = await runPlan(plan, {
    world: { ai: { extract: { values: { name: 'Ana', city: 'Recife' } } } },
    events: [{ type: 'speech', text: 'Sou a Ana de Recife' }],
  });
  expect(run.results[0]!.actions).toEqual([
    { type: 'say', text: 'Tell me your name and city', language: 'pt-BR' },
    { type: 'gather', input: 'speech', timeout_s: 5, language: 'pt-BR', hints: 'names of Brazilian cities' },
  ]);
  expect(run.ports.log.extract).toEqual([
    { tenantId: 1, sessionId: run.session.id, transcript: 'Sou a Ana de Recife', variables: data.variables, prompt: 'names of Brazilian cities', language: 'pt-BR' },
  ]);
  expect(run.session.variables).toEqual({ name: 'Ana', city: 'Recife' });
  expect(run.session.last_input).toBe('Sou a Ana de Recife');
  expect(run.exitOf('ask')).toBe('success');
});

test('voice: an answer missing a variable is retried with the retry text, then takes failed', async () => {
  const run = await runPlan(plan, {
    world: { ai: { extract: { values: { name: 'Ana' } } } },
    events: [
      { type: 'speech', text: 'Ana' },
      { type: 'speech', text: 'Ana again' },
    ],
  });
  expect(run.results[1]!.actions[0]).toEqual({ type: 'say', text: 'Sorry, once more please.', language: 'pt-BR' });
  expect(run.exitOf('ask')).toBe('failed');
  expect(run.session.variables).toEqual({ name: 'Ana' });
});

test('without an AI key the block takes failed at the first answer', async () => {
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(plan, { channel, events: [{ type: channel === 'voice' ? 'speech' : 'message', text: 'Ana, Recife' }] });
    expect(run.exitOf('ask')).toBe('failed');
  }
});

test('chat: the reply text is the transcript', async () => {
  const run = await runPlan(plan, {
    channel: 'chat',
    world: { ai: { extract: { values: { name: 'Bia', city: 'Natal' } } } },
    events: [{ type: 'message', text: 'Bia, Natal' }],
  });
  expect(run.results[0]!.actions).toEqual([{ type: 'reply', text: 'Tell me your name and city' }]);
  expect(run.ports.log.extract[0]!.transcript).toBe('Bia, Natal');
  expect(run.exitOf('ask')).toBe('success');
});

test('voice: silence counts as a failed attempt', async () => {
  const run = await runPlan(plan, { events: [{ type: 'timeout' }, { type: 'timeout' }] });
  expect(run.exitOf('ask')).toBe('failed');
});
