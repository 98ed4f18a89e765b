import { describe, expect, test } from 'vitest';
import { planAround, planDocument, runPlan } from '../test-helpers.ts';
import { startDescription } from './description.ts';

test('a protocol is generated when asked, and reaches templates', async () => {
  const run = await runPlan(
    planDocument(
      [
        { id: 'start', type: 'start', data: { generate_protocol: true } },
        { id: 'say', type: 'play_message', data: { voice_text: 'Your protocol is {{protocol}}' } },
      ],
      [['start', 'next', 'say']],
    ),
  );
  expect(run.session.protocol).toBe('20261122-000001');
  expect(run.actions[0]).toEqual({ type: 'say', text: 'Your protocol is 20261122-000001' });
  expect(run.results[0]!.report?.protocol).toBe('20261122-000001');
});

test('no protocol unless asked', async () => {
  const run = await runPlan(planAround({ id: 'x', type: 'voice_chat_switch' }, []));
  expect(run.session.protocol).toBeNull();
});

test('ignore_call rejects a voice call without answering it; a chat goes on', async () => {
  const plan = planDocument(
    [
      { id: 'start', type: 'start', data: { ignore_call: true } },
      { id: 'hello', type: 'play_message', data: { voice_text: 'Hello' } },
    ],
    [['start', 'next', 'hello']],
  );
  const voice = await runPlan(plan);
  expect(voice.actions).toEqual([{ type: 'hangup', cause: 'rejected', reject: true }]);
  expect(voice.session).toMatchObject({ status: 'ended', hangup_cause: 'rejected', disposition: 'retained' });
  const chat = await runPlan(plan, { channel: 'chat' });
  expect(chat.exitOf('start')).toBe('next');
  expect(chat.actions[0]).toEqual({ type: 'reply', text: 'Hello' });
});

test("a chat that ends sends the start block's closing message", async () => {
  const run = await runPlan(planAround({ id: 'x', type: 'hangup' }, [], {}), { channel: 'chat' });
  expect(run.actions).toEqual([{ type: 'hangup', cause: 'normal_clearing' }]);
  const polite = planAround({ id: 'x', type: 'hangup' }, []);
  polite.nodes[0]!.data = { hangup_chat_message: 'Bye {{caller}}!' };
  expect((await runPlan(polite, { channel: 'chat' })).actions).toEqual([
    { type: 'reply', text: 'Bye +5511999990000!' },
    { type: 'hangup', cause: 'normal_clearing' },
  ]);
});

describe('outbound branching (answered_by_exits)', () => {
  const plan = planDocument(
    [
      { id: 'start', type: 'start', data: { answered_by_exits: true } },
      { id: 'person', type: 'play_message', data: { voice_text: 'Hello' } },
      { id: 'machine', type: 'play_message', data: { voice_text: 'Please call us back' } },
      { id: 'unsure', type: 'play_message', data: { voice_text: 'Hi?' } },
    ],
    [
      ['start', 'human', 'person'],
      ['start', 'machine', 'machine'],
      ['start', 'unknown', 'unsure'],
    ],
  );

  test('off, the start block has its one exit; on, one per answer', () => {
    expect(startDescription.exits({})).toEqual(['next']);
    expect(startDescription.exits({ answered_by_exits: false })).toEqual(['next']);
    expect(startDescription.exits({ answered_by_exits: true })).toEqual(['human', 'machine', 'unknown']);
  });

  test.each([
    ['human', 'human', 'Hello'],
    ['machine', 'machine', 'Please call us back'],
    ['unknown', 'unknown', 'Hi?'],
    [undefined, 'unknown', 'Hi?'],
    ['fax', 'unknown', 'Hi?'],
  ])('an outbound call answered_by %s leaves by %s', async (answeredBy, exit, text) => {
    const run = await runPlan(plan, { init: { direction: 'outbound', ...(answeredBy !== undefined && { variables: { answered_by: answeredBy } }) } });
    expect(run.exitOf('start')).toBe(exit);
    expect(run.actions[0]).toEqual({ type: 'say', text });
  });

  test('an inbound call and a chat leave by Person', async () => {
    expect((await runPlan(plan)).exitOf('start')).toBe('human');
    expect((await runPlan(plan, { channel: 'chat' })).exitOf('start')).toBe('human');
  });
});
