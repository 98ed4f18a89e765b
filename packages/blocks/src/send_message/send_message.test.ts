import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const exits = ['sent', 'failed'];

test('by default an SMS goes to the caller, from the number the session runs on', async () => {
  const run = await runPlan(planAround({ id: 'sms', type: 'send_message', data: { text: 'Your code is {{code}}' } }, exits));
  expect(run.ports.log.messages).toEqual([{ tenantId: 1, channel: 'sms', to: '+5511999990000', from: '+551130000000', text: 'Your code is ' }]);
  expect(run.exitOf('sms')).toBe('sent');
  expect(run.actions[0]).toEqual({ type: 'send_message', channel: 'sms', to: '+5511999990000', text: 'Your code is ', status: 'sent' });
});

test('a refused message takes failed, on voice and on chat', async () => {
  for (const channel of ['voice', 'chat'] as const) {
    const run = await runPlan(planAround({ id: 'wa', type: 'send_message', data: { channel: 'whatsapp', to: '+5511888887777', text: 'Hi' } }, exits), {
      channel,
      world: { messaging: 'fail' },
    });
    expect(run.exitOf('wa')).toBe('failed');
    expect(run.actions[0]).toMatchObject({ type: 'send_message', channel: 'whatsapp', status: 'failed' });
  }
});

test('nothing is sent without a recipient or a text', async () => {
  const run = await runPlan(planAround({ id: 'sms', type: 'send_message', data: { to: '{{nobody}}', text: 'Hi' } }, exits));
  expect(run.ports.log.messages).toEqual([]);
  expect(run.exitOf('sms')).toBe('failed');
});
