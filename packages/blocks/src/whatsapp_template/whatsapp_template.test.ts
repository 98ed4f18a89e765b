import { expect, test } from 'vitest';
import { blockDefinition } from '../registry.ts';
import { planAround, runPlan } from '../test-helpers.ts';

const order = {
  template_name: 'order_ready',
  language: 'pt_BR',
  parameters: [
    { key: 'body.1', value: '{{name}}' },
    { key: 'body.2', value: '{{order}}' },
  ],
  buttons: ['Pick up', 'Deliver'],
};
const exits = ['button_1', 'button_2', 'sent', 'failed'];
const templates = [{ name: 'order_ready', language: 'pt_BR', text: 'Olá {{1}}, o pedido {{2}} está pronto.', buttons: ['Pick up', 'Deliver'] }];
const whatsapp = { channel: 'chat', init: { provider: 'whatsapp', caller: '+5511999990000', variables: { name: 'Ana', order: '42' } } } as const;

test('its exits are one per quick-reply button, then sent and failed', () => {
  expect(blockDefinition('whatsapp_template')!.exits(order)).toEqual(exits);
  expect(blockDefinition('whatsapp_template')!.exits({ ...order, buttons: [] })).toEqual(['sent', 'failed']);
});

test('on WhatsApp the template goes to the customer with each parameter rendered, and waits for a button', async () => {
  const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data: order }, exits), { ...whatsapp, world: { templates, customerWindow: 'closed' } });
  expect(run.ports.log.templates).toEqual([
    expect.objectContaining({ to: '+5511999990000', from: '+551130000000', template: { name: 'order_ready', language: 'pt_BR' }, values: { 'body.1': 'Ana', 'body.2': '42' } }),
  ]);
  expect(run.actions).toEqual([
    {
      type: 'template',
      name: 'order_ready',
      language: 'pt_BR',
      text: 'Olá Ana, o pedido 42 está pronto.',
      options: [
        { id: 'button_1', label: 'Pick up' },
        { id: 'button_2', label: 'Deliver' },
      ],
      status: 'sent',
    },
  ]);
  expect(run.session.status).toBe('waiting');
  expect(run.session.transcript.map((entry) => entry.text)).toEqual(['Olá Ana, o pedido 42 está pronto.']);
});

test("a tap on a button (its payload or its text, however typed) takes the button's exit; another answer takes sent", async () => {
  for (const [text, exit] of [
    ['button_2', 'button_2'],
    ['  pick UP ', 'button_1'],
    ['Can I come tomorrow?', 'sent'],
  ] as const) {
    const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data: order }, exits), { ...whatsapp, world: { templates }, events: [{ type: 'message', text }] });
    expect(run.exitOf('t')).toBe(exit);
    expect(run.session.last_input).toBe(text);
  }
});

test("a template without buttons goes on by sent at once; Meta's refusal takes failed and the report names the reason", async () => {
  const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data: { ...order, buttons: [] } }, ['sent', 'failed']), { ...whatsapp, world: { templates } });
  expect(run.exitOf('t')).toBe('sent');

  const refused = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data: order }, exits), {
    ...whatsapp,
    world: { templates: [{ ...templates[0]!, refuse: 'template_parameter_mismatch' }] },
  });
  expect(refused.exitOf('t')).toBe('failed');
  const report = refused.results.at(-1)!.report!;
  expect(report.nodes.find((node) => node.node_id === 't')).toMatchObject({ exit: 'failed', reason: 'template_parameter_mismatch' });
});

test('a template that is not synced, or none chosen, takes failed with template_not_found', async () => {
  for (const data of [order, { ...order, template_name: '' }]) {
    const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data }, exits), { ...whatsapp, world: { templates: [] } });
    expect(run.exitOf('t')).toBe('failed');
    expect(run.session.path.find((entry) => entry.node_id === 't')?.reason).toBe('template_not_found');
  }
});

test('another chat (web chat, the simulator) gets the plain text with the buttons as reply options, and a tap takes the exit', async () => {
  const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data: order }, exits), {
    channel: 'chat',
    init: { provider: 'webchat', variables: { name: 'Ana', order: '42' } },
    world: { templates },
    events: [{ type: 'message', text: 'button_2' }],
  });
  expect(run.actions[0]).toEqual({
    type: 'reply',
    text: 'Olá Ana, o pedido 42 está pronto.',
    options: [
      { id: 'button_1', label: 'Pick up' },
      { id: 'button_2', label: 'Deliver' },
    ],
  });
  expect(run.exitOf('t')).toBe('button_2');
});

test('on a call the block is skipped: nothing is sent and it goes on by sent', async () => {
  const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data: order }, exits), { world: { templates } });
  expect(run.ports.log.templates).toEqual([]);
  expect(run.exitOf('t')).toBe('sent');
});

test("on WhatsApp the turn's earlier replies go with the template, before it, and are marked sent", async () => {
  const plan = {
    id: 1,
    tenant_id: 1,
    name: 'order',
    version: 1,
    format_version: 1,
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
      { id: 'hello', type: 'play_message', position: { x: 0, y: 0 }, data: { chat_text: 'Hello!' } },
      { id: 't', type: 'whatsapp_template', position: { x: 0, y: 0 }, data: { ...order, buttons: [] } },
    ],
    edges: [
      { id: 'e1', source: 'start', source_exit: 'next', target: 'hello' },
      { id: 'e2', source: 'hello', source_exit: 'next', target: 't' },
    ],
  };
  const run = await runPlan(plan, { ...whatsapp, world: { templates } });
  expect(run.ports.log.templates[0]).toMatchObject({ before: [{ text: 'Hello!' }] });
  expect(run.actions[0]).toEqual({ type: 'reply', text: 'Hello!', sent: true });
  const web = await runPlan(plan, { channel: 'chat', init: { provider: 'webchat' }, world: { templates } });
  expect(web.actions[0]).toEqual({ type: 'reply', text: 'Hello!' });
});
