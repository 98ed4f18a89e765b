import type { DialStatus, EngineEvent } from '@voxplan/engine';
import { expect, test } from 'vitest';
import { planAround, runPlan } from '../test-helpers.ts';

const world = {
  destinations: [
    { id: 1, name: 'Sales', kind: 'voice' as const, uri: 'sip:sales@pbx.example' },
    { id: 2, name: 'CRM', kind: 'chat' as const, uri: 'https://crm.example/handoff' },
    { id: 3, name: 'Support', kind: 'chat' as const, uri: '' },
  ],
};
const exits = ['answer', 'busy', 'no_answer', 'failed'];

test('defaults: 30 seconds of ringing', async () => {
  const run = await runPlan(planAround({ id: 'dest', type: 'destination', data: { destination_id: 1 } }, exits), { world });
  expect(run.actions).toEqual([{ type: 'dial', destination_id: 1, name: 'Sales', uri: 'sip:sales@pbx.example', timeout_s: 30 }]);
  expect(run.session.status).toBe('waiting');
});

test.each<[DialStatus, string]>([
  ['answer', 'answer'],
  ['busy', 'busy'],
  ['no_answer', 'no_answer'],
  ['cancel', 'failed'],
  ['dont_call', 'failed'],
  ['invalid_args', 'failed'],
  ['failed', 'failed'],
])('dial status %s takes %s and goes on the report', async (status, exit) => {
  const run = await runPlan(planAround({ id: 'dest', type: 'destination', data: { destination_id: 1, timeout_s: 20 } }, exits), {
    world,
    events: [{ type: 'dial_result', status }],
  });
  expect(run.exitOf('dest')).toBe(exit);
  expect(run.results.at(-1)!.report).toMatchObject({ dial_status: status, disposition: status === 'answer' ? 'routed' : 'retained' });
});

test('a chat is handed over with its transcript and variables', async () => {
  const plan = planAround({ id: 'dest', type: 'destination', data: { destination_id: 2 } }, exits);
  const run = await runPlan(plan, { channel: 'chat', world, events: [{ type: 'dial_result', status: 'answer' }] });
  expect(run.results[0]!.actions).toEqual([
    { type: 'dial', destination_id: 2, name: 'CRM', uri: 'https://crm.example/handoff', timeout_s: 30, transcript: [], variables: {} },
  ]);
  expect(run.session.disposition).toBe('routed');
});

test('a destination that is gone, or of the other channel, takes failed without dialling', async () => {
  for (const [channel, id] of [
    ['voice', 99],
    ['voice', 2],
    ['chat', 1],
  ] as const) {
    const run = await runPlan(planAround({ id: 'dest', type: 'destination', data: { destination_id: id } }, exits), { channel, world });
    expect(run.actions.some((action) => action.type === 'dial')).toBe(false);
    expect(run.exitOf('dest')).toBe('failed');
    expect(run.session.dial_status).toBe('invalid_args');
  }
});

test('input other than a dial result is ignored while dialling', async () => {
  const run = await runPlan(planAround({ id: 'dest', type: 'destination', data: { destination_id: 1 } }, exits), { world, events: [{ type: 'digits', digits: '1' }] });
  expect(run.results[1]!.ignored).toBe(true);
  expect(run.session.status).toBe('waiting');
});

test("a chat in a queue waits its own minutes for an agent; a call's ring and a desk's answer keep their seconds", async () => {
  const data = { destination_id: 3, timeout_s: 20, chat_wait_min: 25 };
  const dialled = async (destinationId: number, channel: 'voice' | 'chat') =>
    (await runPlan(planAround({ id: 'dest', type: 'destination', data: { ...data, destination_id: destinationId } }, exits), { channel, world })).actions;
  expect(await dialled(3, 'chat')).toMatchObject([{ type: 'dial', timeout_s: 1500 }]);
  expect(await dialled(2, 'chat')).toMatchObject([{ type: 'dial', timeout_s: 20 }]);
  expect(await dialled(1, 'voice')).toMatchObject([{ type: 'dial', timeout_s: 20 }]);
});

test.each<[string, EngineEvent[], object]>([
  ['taken and resolved', [{ type: 'dial_result', status: 'answer', resolved: true }], { dial_status: 'answer', disposition: 'routed', hangup_cause: 'resolved' }],
  ['nobody online', [{ type: 'dial_result', status: 'busy' }], { dial_status: 'busy', disposition: 'missed', hangup_cause: 'normal_clearing' }],
  ['nobody in time', [{ type: 'dial_result', status: 'no_answer' }], { dial_status: 'no_answer', disposition: 'missed', hangup_cause: 'normal_clearing' }],
  ['the customer left while waiting', [{ type: 'hangup' }], { dial_status: 'cancel', disposition: 'abandoned', hangup_cause: 'caller_hangup' }],
])('a chat hand-off %s is reported as such', async (_what, events, report) => {
  const run = await runPlan(planAround({ id: 'dest', type: 'destination', data: { destination_id: 3 } }, exits), { channel: 'chat', world, events });
  expect(run.session.status).toBe('ended');
  expect(run.results.at(-1)!.report).toMatchObject(report);
});
