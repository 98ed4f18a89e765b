import { compilePlan } from '@voxplan/blocks/runtime';
import { describe, expect, test } from 'vitest';
import type { EngineEvent } from './events.ts';
import { handleEvent, startSession } from './interpreter.ts';
import type { EnginePorts } from './runtime.ts';
import { type Edge, init, menuPlan, play, plan, world } from './testing/interpreter-plans.ts';
import { memoryPorts } from './testing/memory-ports.ts';

describe('sessions', () => {
  test('a session is plain JSON: stored between turns, it goes on the same', async () => {
    const events: EngineEvent[] = [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' }];
    const inMemory = await play(menuPlan, events, { world });
    const stored = await play(menuPlan, events, { world, storeAsJson: true });
    expect(stored.session).toEqual(inMemory.session);
    expect(stored.session.turns).toBe(3);
    expect(stored.results.map((result) => result.actions)).toEqual(inMemory.results.map((result) => result.actions));
    // Made by constructors (session.ts says why), still plain objects, written with the same keys in the same order.
    expect(JSON.stringify(inMemory.session)).toBe(JSON.stringify(stored.session));
    const marks = inMemory.results.flatMap((result) => (result.session.turn_path ? [result.session.turn_path] : []));
    expect(marks.length).toBeGreaterThan(0);
    for (const value of [inMemory.session, ...inMemory.session.path, ...marks]) expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    for (const list of [...marks.map((mark) => mark.actions), ...inMemory.results.map((result) => result.actions)]) expect(Array.isArray(list)).toBe(true);
  });

  test('an observer is told of each block entered, each exit and each action as the turn runs, in order', async () => {
    const told: string[] = [];
    const ports: EnginePorts = {
      ...memoryPorts({ ...world, plans: [compilePlan(menuPlan)] }),
      observer: {
        entered: (entry) => told.push(`enter ${entry.node_id}`),
        exited: (entry) => told.push(`exit ${entry.node_id} ${entry.exit}`),
        action: (action) => told.push(`action ${action.type}`),
      },
    };
    const first = await startSession(init, ports);
    expect(told).toEqual(['enter start', 'exit start next', 'enter menu', 'action say', 'action gather']);
    expect(first.session.path.map((entry) => entry.node_id)).toEqual(['start', 'menu']);
    told.length = 0;
    const second = await handleEvent(first.session, { type: 'digits', digits: '1' }, ports);
    expect(told).toEqual(['exit menu 1', 'enter sales', 'action dial']);
    expect(second.actions.map((action) => action.type)).toEqual(['dial']);
  });

  test('a turn never changes the session it was given', async () => {
    const ports = memoryPorts({ ...world, plans: [compilePlan(menuPlan)] });
    const { session } = await startSession(init, ports);
    const before = JSON.stringify(session);
    const deepFreeze = (value: unknown): void => {
      if (value && typeof value === 'object') {
        Object.freeze(value);
        Object.values(value).forEach(deepFreeze);
      }
    };
    deepFreeze(session);
    await handleEvent(session, { type: 'digits', digits: '1' }, ports);
    await handleEvent(session, { type: 'digits', digits: '7' }, ports);
    await handleEvent(session, { type: 'hangup' }, ports);
    expect(JSON.stringify(session)).toBe(before);
  });

  test('an answered outbound call: machine detection told later sets answered_by and moves nothing; its report says answer', async () => {
    const { results, session } = await play(menuPlan, [{ type: 'answered_by', answered_by: 'machine' }, { type: 'hangup' }, { type: 'answered_by', answered_by: 'human' }], {
      world,
      init: { direction: 'outbound', variables: { answered_by: 'unknown' } },
    });
    expect(results[0]!.session.variables.answered_by).toBe('unknown');
    expect(results[1]).toMatchObject({ actions: [] });
    expect(results[1]!.session).toMatchObject({ node_id: 'menu', status: 'waiting', variables: { answered_by: 'machine' } });
    expect(results[2]!.report).toMatchObject({ direction: 'outbound', dial_status: 'answer', variables: { answered_by: 'machine' } });
    // Once the call is over, nothing changes.
    expect(results[3]).toMatchObject({ ignored: true });
    expect(session.variables.answered_by).toBe('machine');
    // An inbound call's report names no dial status of its own.
    const inbound = await play(menuPlan, [{ type: 'hangup' }], { world });
    expect(inbound.results[1]!.report!.dial_status).toBeNull();
  });

  test('the report of an ended session has what the call report needs', async () => {
    const { results } = await play(menuPlan, [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'busy' }], {
      world,
      init: { direction: 'outbound', source_ip: '203.0.113.9' },
    });
    expect(results.slice(0, 2).map((result) => result.report)).toEqual([undefined, undefined]);
    expect(results[2]!.report).toEqual({
      session_id: 'CA123',
      tenant_id: 1,
      plan_id: 1,
      plan_name: 'Main line',
      plan_version: 4,
      channel: 'voice',
      provider: 'twilio',
      direction: 'outbound',
      caller: '+5511999990000',
      called: '+551130000000',
      source_ip: '203.0.113.9',
      protocol: null,
      last_node: { plan_id: 1, node_id: 'sales', type: 'destination' },
      nodes: [
        { plan_id: 1, node_id: 'start', type: 'start', at: '2026-11-22T12:00:00.000Z', exit: 'next' },
        { plan_id: 1, node_id: 'menu', type: 'voice_menu', at: '2026-11-22T12:00:00.000Z', exit: '1' },
        { plan_id: 1, node_id: 'sales', type: 'destination', at: '2026-11-22T12:00:00.000Z', exit: 'busy' },
      ],
      pressed_digits: [{ plan_id: 1, node_id: 'menu', digits: '1', at: '2026-11-22T12:00:00.000Z' }],
      hangup_cause: 'normal_clearing',
      disposition: 'retained',
      dial_status: 'busy',
      failure: null,
      started_at: '2026-11-22T12:00:00.000Z',
      ended_at: '2026-11-22T12:00:00.000Z',
      duration_s: 0,
      goal: null,
      recording: null,
      variables: {},
    });
  });

  test('times come from the clock port: entry times, the end, and the duration', async () => {
    const ports = memoryPorts({ ...world, plans: [compilePlan(menuPlan)] });
    const first = await startSession(init, ports);
    ports.clockAt(new Date('2026-11-22T12:00:35.000Z'));
    const second = await handleEvent(first.session, { type: 'digits', digits: '1' }, ports);
    ports.clockAt(new Date('2026-11-22T12:02:00.000Z'));
    const third = await handleEvent(second.session, { type: 'hangup' }, ports);
    expect(third.report).toMatchObject({ started_at: '2026-11-22T12:00:00.000Z', ended_at: '2026-11-22T12:02:00.000Z', duration_s: 120 });
    expect(third.report!.nodes.map((entry) => entry.at)).toEqual(['2026-11-22T12:00:00.000Z', '2026-11-22T12:00:00.000Z', '2026-11-22T12:00:35.000Z']);
  });
});

describe('how sessions end', () => {
  test('the caller hanging up abandons the session, with no action to send', async () => {
    const { results, session } = await play(menuPlan, [{ type: 'hangup' }]);
    expect(results[1]!.actions).toEqual([]);
    expect(session).toMatchObject({ status: 'ended', hangup_cause: 'caller_hangup', disposition: 'abandoned' });
    expect(results[1]!.report?.last_node?.node_id).toBe('menu');
  });

  test('a session that reached its destination stays routed when the caller hangs up afterwards', async () => {
    const withSurvey = plan(
      [...menuPlan.nodes, { id: 'survey', type: 'voice_menu', data: { voice_text: 'Rate us', options: [{ digits: '5' }] } }],
      [...menuPlan.edges.map((edge): Edge => [edge.source, edge.source_exit, edge.target]), ['sales', 'answer', 'survey']],
    );
    const { results, session } = await play(withSurvey, [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' }, { type: 'hangup' }], { world });
    expect(results[2]!.actions[0]).toEqual({ type: 'say', text: 'Rate us' });
    expect(session).toMatchObject({ disposition: 'routed', dial_status: 'answer', hangup_cause: 'caller_hangup' });
  });

  test('an unconnected exit ends the session as hangup does', async () => {
    const { session, results } = await play(menuPlan, [{ type: 'timeout' }]);
    expect(results[1]!.actions).toEqual([{ type: 'say', text: 'Bye' }, { type: 'hangup', cause: 'normal_clearing' }]);
    expect(session).toMatchObject({ status: 'ended', disposition: 'retained', hangup_cause: 'normal_clearing' });
  });

  test('chat: idle past the session timeout ends the conversation with the plan chat text', async () => {
    const { session, results } = await play(menuPlan, [{ type: 'timeout' }], { init: { channel: 'chat', provider: 'webchat' } });
    expect(results[1]!.actions).toEqual([
      { type: 'reply', text: 'Are you still there? Closing this chat.' },
      { type: 'hangup', cause: 'session_timeout' },
    ]);
    expect(session).toMatchObject({ disposition: 'abandoned', hangup_cause: 'session_timeout' });
  });

  test('an outbound chat whose first message was not delivered ends failed at once, saying nothing more', async () => {
    const { session, results } = await play(menuPlan, [{ type: 'undelivered', code: 'reengagement_needed', message: '131047 Re-engagement message' }, { type: 'message', text: '1' }], {
      init: { channel: 'chat', provider: 'whatsapp', direction: 'outbound' },
    });
    expect(results[1]!.actions).toEqual([{ type: 'hangup', cause: 'engine_error' }]);
    expect(session).toMatchObject({ status: 'ended', disposition: 'failed', dial_status: 'failed', failure: { code: 'reengagement_needed', node_id: 'menu' } });
    expect(results[1]!.report).toMatchObject({ direction: 'outbound', dial_status: 'failed', failure: { code: 'reengagement_needed', message: '131047 Re-engagement message' } });
    expect(results[2]!.ignored).toBe(true);
  });

  test('an expiry closes a waiting session as of its last sign of life, saying nothing, even when its plan is gone', async () => {
    const ports = memoryPorts({ plans: [compilePlan(menuPlan)] });
    ports.clockAt(new Date('2026-11-22T12:00:00.000Z'));
    const waiting = (await startSession(init, ports)).session;
    ports.clockAt(new Date('2026-11-22T16:30:00.000Z'));
    // The session names a plan version this world does not have, as after the plan was removed.
    const orphan = { ...waiting, plan_version: 99 };
    const expired = await handleEvent(orphan, { type: 'expire', at: '2026-11-22T12:00:05.000Z' }, ports);
    expect(expired.actions).toEqual([]);
    expect(expired.session).toMatchObject({ status: 'ended', disposition: 'expired', hangup_cause: 'end_not_received', failure: null });
    expect(expired.report).toMatchObject({ ended_at: '2026-11-22T12:00:05.000Z', duration_s: 5, last_node: { node_id: 'menu' } });
    expect((await handleEvent(expired.session, { type: 'expire', at: '2026-11-22T16:30:00.000Z' }, ports)).ignored).toBe(true);
  });

  test('a plan that cannot be loaded fails the session at once', async () => {
    const ports = memoryPorts({ plans: [compilePlan(menuPlan)] });
    const result = await startSession({ ...init, plan_id: 99 }, ports);
    expect(result.actions).toEqual([{ type: 'hangup', cause: 'engine_error' }]);
    expect(result.session.failure).toMatchObject({ code: 'plan_not_found', plan_id: 99 });
    expect(result.report?.disposition).toBe('failed');
    const pinned = await startSession({ ...init, plan_version: 3 }, ports);
    expect(pinned.session.failure?.code).toBe('plan_not_found');
  });

  test('a block that throws fails the session, saying which block', async () => {
    const ports: EnginePorts = { ...memoryPorts({ plans: [compilePlan(menuPlan)] }) };
    ports.audios = { find: () => Promise.reject(new Error('database is down')) };
    const audioPlan = plan(
      [
        { id: 'start', type: 'start' },
        { id: 'msg', type: 'play_message', data: { text_to_speech: false, audio_id: 1 } },
      ],
      [['start', 'next', 'msg']],
    );
    ports.plans = memoryPorts({ plans: [compilePlan(audioPlan)] }).plans;
    const result = await startSession(init, ports);
    expect(result.session.failure).toEqual({ code: 'block_error', message: 'block msg (play_message) failed: database is down', plan_id: 1, node_id: 'msg' });
  });

  test("a failing block a person named is named so in the operator's message, not by its id", async () => {
    const ports: EnginePorts = { ...memoryPorts({ plans: [] }) };
    ports.audios = { find: () => Promise.reject(new Error('database is down')) };
    const named = plan(
      [
        { id: 'start', type: 'start' },
        { id: 'msg', type: 'play_message', label: '  Welcome  ', data: { text_to_speech: false, audio_id: 1 } },
      ],
      [['start', 'next', 'msg']],
    );
    ports.plans = memoryPorts({ plans: [compilePlan(named)] }).plans;
    const result = await startSession(init, ports);
    // Trimmed as the document is read.
    expect(result.session.failure?.message).toBe('block “Welcome” (play_message) failed: database is down');
  });
});

describe('a test run from a chosen block', () => {
  const startWith = (data: object) =>
    plan(
      [
        { id: 'start', type: 'start', data },
        { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1 for {{protocol}}', options: [{ digits: '1', label: 'Sales' }] } },
        { id: 'bye', type: 'play_message', data: { voice_text: 'Bye', chat_text: 'Bye!' } },
      ],
      [
        ['start', 'next', 'bye'],
        ['menu', 'timeout', 'bye'],
      ],
    );

  test('begins at that block, with the protocol the start block generates, and the start block out of the path', async () => {
    const ports = memoryPorts({ plans: [compilePlan(startWith({ generate_protocol: true }))] });
    const { session, actions } = await startSession(init, ports, { startNodeId: 'menu' });
    expect(session.path.map((entry) => entry.node_id)).toEqual(['menu']);
    expect(session).toMatchObject({ status: 'waiting', node_id: 'menu', steps: 1 });
    expect(session.protocol).not.toBeNull();
    expect(actions[0]).toEqual({ type: 'say', text: `Press 1 for ${session.protocol}` });
  });

  test('a voice call the start block rejects is rejected from any block', async () => {
    const ports = memoryPorts({ plans: [compilePlan(startWith({ ignore_call: true }))] });
    const { session } = await startSession(init, ports, { startNodeId: 'menu' });
    expect(session).toMatchObject({ status: 'ended', hangup_cause: 'rejected', path: [] });
  });

  test('a block not in the plan fails the session, naming it', async () => {
    const ports = memoryPorts({ plans: [compilePlan(startWith({}))] });
    const { session } = await startSession(init, ports, { startNodeId: 'gone' });
    expect(session.failure).toMatchObject({ code: 'node_not_found', node_id: 'gone' });
  });
});

describe('events that do not apply are ignored and change nothing', () => {
  test.each<[string, EngineEvent[], EngineEvent]>([
    ['speech at a key menu', [], { type: 'speech', text: 'one' }],
    ['a dial result at a menu', [], { type: 'dial_result', status: 'answer' }],
    ['a second start', [], { type: 'start' }],
    ['keys after the end', [{ type: 'hangup' }], { type: 'digits', digits: '1' }],
    ['a recording with no recording block', [], { type: 'recording_ready', url: 'u', duration_s: 1 }],
  ])('%s', async (_name, before, event) => {
    const { session } = await play(menuPlan, before);
    const ports = memoryPorts({ plans: [compilePlan(menuPlan)] });
    const result = await handleEvent(session, event, ports);
    expect(result).toEqual({ session, actions: [], ignored: true });
    expect(result.session.turns).toBe(1 + before.length);
  });
});
