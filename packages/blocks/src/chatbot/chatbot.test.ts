import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const data = { assistant_id: 'asst_1', initial_text: 'Hi {{caller}}, how can I help?', additional_instructions: 'Caller is {{caller}}', max_turns: 3 };
const exits = ['done', 'transfer', 'error'];
const plan = planAround({ id: 'bot', type: 'chatbot', data }, exits);

test('voice: greets, listens, and talks turn by turn with the history until the assistant is done', async () => {
  const run = await runPlan(plan, {
    world: {
      ai: {
        chat: [
          { reply: 'Sure, which order?', outcome: 'continue' },
          { reply: 'It ships tomorrow. Bye!', outcome: 'done' },
        ],
      },
    },
    events: [
      { type: 'speech', text: 'Where is my order?' },
      { type: 'speech', text: 'Number 42' },
    ],
  });
  expect(run.results[0]!.actions).toEqual([
    { type: 'say', text: 'Hi +5511999990000, how can I help?' },
    { type: 'gather', input: 'speech', timeout_s: 5 },
  ]);
  expect(run.results[1]!.actions).toEqual([{ type: 'say', text: 'Sure, which order?' }, { type: 'gather', input: 'speech', timeout_s: 5 }]);
  expect(run.ports.log.chat[1]).toMatchObject({
    provider: 'openai',
    assistantId: 'asst_1',
    instructions: 'Caller is +5511999990000',
    input: 'Number 42',
    history: [
      { role: 'assistant', text: 'Hi +5511999990000, how can I help?' },
      { role: 'user', text: 'Where is my order?' },
      { role: 'assistant', text: 'Sure, which order?' },
    ],
  });
  expect(run.exitOf('bot')).toBe('done');
});

test('chat: replies to messages, and takes transfer when the assistant asks for it', async () => {
  const run = await runPlan(plan, {
    channel: 'chat',
    world: { ai: { chat: [{ reply: 'Let me get a person.', outcome: 'transfer' }] } },
    events: [{ type: 'message', text: 'human please' }],
  });
  expect(run.results[0]!.actions).toEqual([{ type: 'reply', text: 'Hi +5511999990000, how can I help?' }]);
  expect(run.results[1]!.actions[0]).toEqual({ type: 'reply', text: 'Let me get a person.' });
  expect(run.exitOf('bot')).toBe('transfer');
});

test('after max_turns the block takes done on its own', async () => {
  const run = await runPlan(plan, {
    channel: 'chat',
    world: { ai: { chat: [{ reply: 'Go on', outcome: 'continue' }] } },
    events: [
      { type: 'message', text: 'a' },
      { type: 'message', text: 'b' },
      { type: 'message', text: 'c' },
    ],
  });
  expect(run.ports.log.chat).toHaveLength(3);
  expect(run.exitOf('bot')).toBe('done');
});

test('without an AI key the block takes error', async () => {
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(plan, { channel, events: [{ type: channel === 'voice' ? 'speech' : 'message', text: 'hello' }] });
    expect(run.exitOf('bot')).toBe('error');
  }
});

test('voice: two silences in a row end the conversation as done', async () => {
  const run = await runPlan(plan, { events: [{ type: 'timeout' }, { type: 'timeout' }] });
  expect(run.results[1]!.actions).toEqual([{ type: 'gather', input: 'speech', timeout_s: 5 }]);
  expect(run.exitOf('bot')).toBe('done');
});
