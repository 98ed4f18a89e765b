import { expect, test } from 'vitest';
import { planAround, planDocument, runPlan } from '../test-helpers.ts';

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
