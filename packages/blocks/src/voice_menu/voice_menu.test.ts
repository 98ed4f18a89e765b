import type { EngineEvent } from '@voxplan/engine';
import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const data = {
  voice_text: 'Press 1 for sales, 22 for support',
  chat_text: 'Choose an option',
  options: [
    { digits: '1', label: 'Sales' },
    { digits: '22', label: 'Support' },
  ],
  max_digits: 2,
  timeout_s: 4,
  max_retries: 2,
  invalid_text: 'Sorry, that is not an option.',
};
const exits = ['1', '22', 'timeout', 'invalid'];
const plan = planAround({ id: 'menu', type: 'voice_menu', data }, exits);
const prompt = [
  { type: 'say', text: 'Press 1 for sales, 22 for support' },
  { type: 'gather', input: 'dtmf', timeout_s: 4, max_digits: 2 },
];

test('voice: plays the prompt, gathers keys, and takes the option pressed', async () => {
  const run = await runPlan(plan, { events: [{ type: 'digits', digits: '22' }] });
  expect(run.results[0]!.actions).toEqual(prompt);
  expect(run.exitOf('menu')).toBe('22');
  expect(run.session.last_digits).toBe('22');
  expect(run.results.at(-1)!.report?.pressed_digits).toEqual([{ plan_id: 1, node_id: 'menu', digits: '22', at: '2026-11-22T12:00:00.000Z' }]);
});

test('voice: wrong keys are retried with the invalid text, then take invalid; every press is on the report', async () => {
  const events: EngineEvent[] = [
    { type: 'digits', digits: '9' },
    { type: 'digits', digits: '8' },
    { type: 'digits', digits: '7' },
  ];
  const run = await runPlan(plan, { events });
  expect(run.results[1]!.actions).toEqual([{ type: 'say', text: 'Sorry, that is not an option.' }, ...prompt]);
  expect(run.results[2]!.actions).toEqual([{ type: 'say', text: 'Sorry, that is not an option.' }, ...prompt]);
  expect(run.exitOf('menu')).toBe('invalid');
  expect(run.session.digits.map((entry) => entry.digits)).toEqual(['9', '8', '7']);
});

test('voice: silence is retried, then takes timeout; a retry that succeeds takes its option', async () => {
  const silent = await runPlan(plan, { events: [{ type: 'timeout' }, { type: 'digits', digits: '' }, { type: 'timeout' }] });
  expect(silent.results[1]!.actions).toEqual(prompt);
  expect(silent.exitOf('menu')).toBe('timeout');
  const late = await runPlan(plan, { events: [{ type: 'timeout' }, { type: 'digits', digits: '1' }] });
  expect(late.exitOf('menu')).toBe('1');
});

test('chat: sends the prompt with the options, and takes a reply by digits or by label', async () => {
  const byDigits = await runPlan(plan, { channel: 'chat', events: [{ type: 'message', text: ' 1 ' }] });
  expect(byDigits.results[0]!.actions).toEqual([
    {
      type: 'reply',
      text: 'Choose an option',
      options: [
        { id: '1', label: 'Sales' },
        { id: '22', label: 'Support' },
      ],
    },
  ]);
  expect(byDigits.exitOf('menu')).toBe('1');
  expect(byDigits.session.digits.map((entry) => entry.digits)).toEqual(['1']);
  const byLabel = await runPlan(plan, { channel: 'chat', events: [{ type: 'message', text: 'support' }] });
  expect(byLabel.exitOf('menu')).toBe('22');
  expect(byLabel.session.last_input).toBe('support');
});

test('chat: an unknown reply gets the invalid text and the options again, then takes invalid', async () => {
  const run = await runPlan(plan, {
    channel: 'chat',
    events: [
      { type: 'message', text: 'hello?' },
      { type: 'message', text: 'x' },
      { type: 'message', text: 'y' },
    ],
  });
  expect(run.results[1]!.actions[0]).toEqual({ type: 'reply', text: 'Sorry, that is not an option.' });
  expect(run.results[1]!.actions[1]).toMatchObject({ type: 'reply', text: 'Choose an option' });
  expect(run.exitOf('menu')).toBe('invalid');
});

test('events the menu has no use for are ignored', async () => {
  const run = await runPlan(plan, { events: [{ type: 'speech', text: 'sales' }, { type: 'message', text: '1' }] });
  expect(run.results.slice(1).map((result) => result.ignored)).toEqual([true, true]);
  expect(run.session.status).toBe('waiting');
});
