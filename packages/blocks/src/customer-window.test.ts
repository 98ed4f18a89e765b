/** A plan's replies outside WhatsApp's 24-hour window (docs/channels-whatsapp.md): never sent, never silent. */
import { expect, test } from 'vitest';
import { planAround, planDocument, runPlan } from './test-helpers.ts';

const chat = { channel: 'chat', init: { provider: 'whatsapp' } } as const;

test("outside the window a chatbot's reply is withheld and the block takes its error exit, the report naming why", async () => {
  const plan = planAround({ id: 'bot', type: 'chatbot', data: { assistant_id: 'a', initial_text: 'Hi, how can I help?' } }, ['done', 'transfer', 'error']);
  const run = await runPlan(plan, { ...chat, world: { customerWindow: 'closed' } });
  expect(run.actions.filter((action) => action.type === 'reply')).toEqual([]);
  expect(run.exitOf('bot')).toBe('error');
  expect(run.results.at(-1)!.report!.nodes.find((node) => node.node_id === 'bot')).toMatchObject({ exit: 'error', reason: 'outside_customer_window' });
});

test('a block without an error exit goes on, its reply withheld and named on the report; inside the window all is sent', async () => {
  const plan = planDocument(
    [
      { id: 'start', type: 'start' },
      { id: 'hello', type: 'play_message', data: { chat_text: 'Hello' } },
      { id: 'end', type: 'hangup' },
    ],
    [
      ['start', 'next', 'hello'],
      ['hello', 'next', 'end'],
    ],
  );
  const closed = await runPlan(plan, { ...chat, world: { customerWindow: 'closed' } });
  expect(closed.actions.some((action) => action.type === 'reply')).toBe(false);
  expect(closed.results.at(-1)!.report!.nodes.map((node) => [node.node_id, node.exit, node.reason])).toEqual([
    ['start', 'next', undefined],
    ['hello', 'next', 'outside_customer_window'],
    ['end', null, undefined],
  ]);

  const open = await runPlan(plan, { ...chat, world: { customerWindow: 'open' } });
  expect(open.actions).toContainEqual({ type: 'reply', text: 'Hello' });
  expect(open.session.path.every((entry) => entry.reason === undefined)).toBe(true);
});

test('the template block is sent outside the window', async () => {
  const data = { template_name: 'hello', language: 'en', parameters: [], buttons: [] };
  const run = await runPlan(planAround({ id: 't', type: 'whatsapp_template', data }, ['sent', 'failed']), {
    ...chat,
    world: { customerWindow: 'closed', templates: [{ name: 'hello', language: 'en', text: 'Hello!' }] },
  });
  expect(run.exitOf('t')).toBe('sent');
  expect(run.actions[0]).toMatchObject({ type: 'template', status: 'sent', text: 'Hello!' });
});
