import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const exits = ['sent', 'failed'];

test('by default an SMS goes to the caller, from the number the session runs on', async () => {
  const run = await runPlan(planAround({ id: 'sms', type: 'send_message', data: { text: 'Your code is {{code}}' } }, exits));
  expect(run.ports.log.messages).toEqual([{ tenantId: 1, channel: 'sms', to: '+5511999990000', from: '+551130000000', text: 'Your code is ', at: expect.any(Date) }]);
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

const late = { channel: 'whatsapp', to: '{{caller}}', text: 'Your order is ready' };

test('outside the WhatsApp window a message without a fallback takes failed, the reason on the report', async () => {
  const run = await runPlan(planAround({ id: 'wa', type: 'send_message', data: late }, exits), { channel: 'chat', world: { customerWindow: 'closed' } });
  expect(run.exitOf('wa')).toBe('failed');
  expect(run.actions[0]).toMatchObject({ type: 'send_message', status: 'failed', reason: 'outside_customer_window' });
  expect(run.results.at(-1)!.report!.nodes.find((node) => node.node_id === 'wa')).toMatchObject({ exit: 'failed', reason: 'outside_customer_window' });
});

test('outside the WhatsApp window the fallback template goes instead, its parameters mapped', async () => {
  const data = { ...late, fallback_template_name: 'order_ready', fallback_language: 'en_US', fallback_parameters: [{ key: 'body.1', value: '{{order}}' }] };
  const world = { customerWindow: 'closed' as const, templates: [{ name: 'order_ready', language: 'en_US', text: 'Order {{1}} is ready' }] };
  const run = await runPlan(planAround({ id: 'wa', type: 'send_message', data }, exits), { channel: 'chat', world, init: { variables: { order: '42' } } });
  expect(run.exitOf('wa')).toBe('sent');
  expect(run.ports.log.templates).toEqual([expect.objectContaining({ to: '+5511999990000', template: { name: 'order_ready', language: 'en_US' }, values: { 'body.1': '42' } })]);
  expect(run.actions[0]).toMatchObject({ type: 'send_message', status: 'sent', template: { name: 'order_ready', language: 'en_US' } });

  const inside = await runPlan(planAround({ id: 'wa', type: 'send_message', data }, exits), { channel: 'chat', world: { ...world, customerWindow: 'open' } });
  expect(inside.ports.log.templates).toEqual([]);
  expect(inside.ports.log.messages).toHaveLength(1);
});
