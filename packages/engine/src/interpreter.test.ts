import { compilePlan } from '@voxplan/blocks/runtime';
import { describe, expect, test } from 'vitest';
import type { EngineEvent } from './events.ts';
import { handleEvent, startSession, type TurnResult } from './interpreter.ts';
import { engineLimits } from './limits.ts';
import type { EnginePorts } from './runtime.ts';
import type { Session, SessionInit } from './session.ts';
import { type MemoryWorld, memoryPorts } from './testing/memory-ports.ts';

type Edge = [string, string, string];

function plan(nodes: Array<{ id: string; type: string; label?: string; data?: object }>, edges: Edge[], extra: object = {}) {
  return {
    id: 1,
    tenant_id: 1,
    name: 'Main line',
    version: 4,
    format_version: 1,
    nodes: nodes.map((node) => ({ position: { x: 0, y: 0 }, data: {}, ...node })),
    edges: edges.map(([source, source_exit, target], index) => ({ id: `e${index}`, source, source_exit, target })),
    ...extra,
  };
}

const init: SessionInit = { id: 'CA123', tenant_id: 1, plan_id: 1, channel: 'voice', provider: 'twilio', caller: '+5511999990000', called: '+551130000000' };

async function play(document: object, events: EngineEvent[], options: { init?: Partial<SessionInit>; world?: MemoryWorld; storeAsJson?: boolean } = {}) {
  const ports = memoryPorts({ ...options.world, plans: [compilePlan(document)] });
  const results: TurnResult[] = [await startSession({ ...init, ...options.init }, ports)];
  for (const event of events) {
    const stored = options.storeAsJson ? (JSON.parse(JSON.stringify(results.at(-1)!.session)) as Session) : results.at(-1)!.session;
    results.push(await handleEvent(stored, event, ports));
  }
  return { results, session: results.at(-1)!.session, ports };
}

const menuPlan = plan(
  [
    { id: 'start', type: 'start' },
    { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1', label: 'Sales' }], max_retries: 0 } },
    { id: 'sales', type: 'destination', data: { destination_id: 1 } },
    { id: 'bye', type: 'play_message', data: { voice_text: 'Bye', chat_text: 'Bye!' } },
  ],
  [
    ['start', 'next', 'menu'],
    ['menu', '1', 'sales'],
    ['menu', 'invalid', 'menu'],
    ['menu', 'timeout', 'bye'],
  ],
  { settings: { chat_text: 'Are you still there? Closing this chat.' } },
);
const world: MemoryWorld = { destinations: [{ id: 1, name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example' }] };

describe('sessions', () => {
  test('a session is plain JSON: stored between turns, it goes on the same', async () => {
    const events: EngineEvent[] = [{ type: 'digits', digits: '1' }, { type: 'dial_result', status: 'answer' }];
    const inMemory = await play(menuPlan, events, { world });
    const stored = await play(menuPlan, events, { world, storeAsJson: true });
    expect(stored.session).toEqual(inMemory.session);
    expect(stored.session.turns).toBe(3);
    expect(stored.results.map((result) => result.actions)).toEqual(inMemory.results.map((result) => result.actions));
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

describe('loops', () => {
  const busyLoop = plan(
    [
      { id: 'start', type: 'start' },
      { id: 'count', type: 'variable', data: { assignments: [{ name: 'n', value: '=n + 1' }] } },
      { id: 'check', type: 'condition', data: { rules: [{ left: '=n', op: 'gt', right: '0' }] } },
    ],
    [
      ['start', 'next', 'count'],
      ['count', 'next', 'check'],
      ['check', 'true', 'count'],
    ],
  );

  test(`a loop that waits for nothing is stopped at ${engineLimits.maxSteps} steps, as failed with a reason`, async () => {
    const { session, results } = await play(busyLoop, []);
    expect(session.steps).toBe(engineLimits.maxSteps);
    expect(session.variables.n).toBe(500);
    expect(session.failure).toMatchObject({ code: 'step_limit', node_id: 'check' });
    expect(session.failure?.message).toContain('1000 blocks');
    expect(results[0]!.actions).toEqual([{ type: 'hangup', cause: 'engine_error' }]);
    expect(results[0]!.report).toMatchObject({ disposition: 'failed', hangup_cause: 'engine_error' });
  });

  test(`the same block entered ${engineLimits.maxSameNodeInARow} times in a row ends the session, even across turns`, async () => {
    const wrongKeys = Array.from({ length: engineLimits.maxSameNodeInARow - 2 }, (): EngineEvent => ({ type: 'digits', digits: '9' }));
    const patient = await play(menuPlan, wrongKeys);
    expect(patient.session.status).toBe('waiting');
    expect(patient.session.same_node_streak).toBe(engineLimits.maxSameNodeInARow - 1);
    const { session } = await play(menuPlan, [...wrongKeys, { type: 'digits', digits: '9' }]);
    expect(session.failure).toMatchObject({ code: 'loop_limit', node_id: 'menu' });
    expect(session.disposition).toBe('failed');
  });

  test('a block looping on itself without input is stopped in the same turn', async () => {
    const spin = plan(
      [
        { id: 'start', type: 'start' },
        { id: 'spin', type: 'voice_chat_switch' },
      ],
      [
        ['start', 'next', 'spin'],
        ['spin', 'voice', 'spin'],
      ],
    );
    const { session } = await play(spin, []);
    expect(session.failure?.code).toBe('loop_limit');
    expect(session.steps).toBe(engineLimits.maxSameNodeInARow);
  });
});

test('built-in variables reach templates', async () => {
  const document = plan(
    [
      { id: 'start', type: 'start', data: { generate_protocol: true } },
      { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press', options: [{ digits: '4' }] } },
      {
        id: 'say',
        type: 'play_message',
        data: { voice_text: '{{caller}}|{{called}}|{{channel}}|{{protocol}}|{{session_id}}|{{plan_id}}|{{tenant_id}}|{{last_digits}}|{{last_input}}|{{now}}' },
      },
    ],
    [
      ['start', 'next', 'menu'],
      ['menu', '4', 'say'],
    ],
  );
  const { results } = await play(document, [{ type: 'digits', digits: '4' }]);
  expect(results[1]!.actions[0]).toEqual({
    type: 'say',
    text: '+5511999990000|+551130000000|voice|20261122-000001|CA123|1|1|4||2026-11-22T12:00:00.000Z',
  });
});

test('variables given at the start are kept, except names a plan may not assign', async () => {
  const { session } = await play(menuPlan, [], { init: { variables: { campaign: 'xmas', caller: 'spoof', ...JSON.parse('{"__proto__": {"x": 1}}') } } });
  expect(session.variables).toEqual({ campaign: 'xmas' });
  expect(session.caller).toBe('+5511999990000');
});

test('a recording that is ready before the call ends is analysed when it ends', async () => {
  const recorded = plan(
    [
      { id: 'start', type: 'start' },
      { id: 'rec', type: 'recording', data: { analyses: [{ kind: 'keywords', items: ['refund'] }] } },
      { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1' }] } },
    ],
    [
      ['start', 'next', 'rec'],
      ['rec', 'next', 'menu'],
    ],
  );
  const { results, ports } = await play(recorded, [{ type: 'recording_ready', url: 'https://media.example/r.wav', duration_s: 30 }, { type: 'hangup' }], {
    world: { ai: { analyse: { results: { keywords: ['refund'] } } } },
  });
  expect(results[1]).toMatchObject({ actions: [], session: { status: 'waiting', recording: { status: 'recording', url: 'https://media.example/r.wav' } } });
  expect(ports.log.analyse).toHaveLength(1);
  expect(results[2]!.report?.recording).toMatchObject({ status: 'analysed', results: { keywords: ['refund'] } });
});

describe('a channel that carries a turn out action by action (AGI)', () => {
  const welcome = plan(
    [
      { id: 'start', type: 'start' },
      { id: 'hello', type: 'play_message', data: { voice_text: 'Welcome' } },
      { id: 'rec', type: 'recording', data: { analyses: [] } },
      { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1' }] } },
    ],
    [
      ['start', 'next', 'hello'],
      ['hello', 'next', 'rec'],
      ['rec', 'next', 'menu'],
    ],
  );

  test('a hang-up during the first action: the path ends in its block, the recording after it was never made', async () => {
    const { results } = await play(welcome, [{ type: 'hangup', actions_started: 1 }], { storeAsJson: true });
    expect(results[0]!.actions.map((action) => action.type)).toEqual(['say', 'record', 'say', 'gather']);
    const report = results[1]!.report!;
    expect(report.nodes.map((node) => [node.node_id, node.exit])).toEqual([
      ['start', 'next'],
      ['hello', null],
    ]);
    expect(report).toMatchObject({ last_node: { node_id: 'hello' }, recording: null, hangup_cause: 'caller_hangup' });
  });

  test('a hang-up once every action started keeps the whole path; one without the count, as before', async () => {
    for (const event of [{ type: 'hangup', actions_started: 4 }, { type: 'hangup' }] as const) {
      const { results } = await play(welcome, [event]);
      expect(results[1]!.report!.nodes.map((node) => node.node_id)).toEqual(['start', 'hello', 'rec', 'menu']);
      expect(results[1]!.report!.recording).toMatchObject({ status: 'recording' });
    }
  });

  test('a prompt the channel could not play is the failure, at its block; the session goes on, a later hang-up still trims', async () => {
    const { results } = await play(
      welcome,
      [
        { type: 'prompt_failed', action: 0, message: 'the PBX could not play https://x.example/a.wav (audio_not_found)' },
        { type: 'hangup', actions_started: 3 },
      ],
      { storeAsJson: true },
    );
    expect(results[1]).toMatchObject({ actions: [], session: { status: 'waiting', failure: { code: 'prompt_unplayable', node_id: 'hello' } } });
    const report = results[2]!.report!;
    expect(report.nodes.map((node) => node.node_id)).toEqual(['start', 'hello', 'rec', 'menu']);
    expect(report.failure).toMatchObject({ code: 'prompt_unplayable', node_id: 'hello', message: expect.stringContaining('audio_not_found') });
  });

  test('a speech engine the channel could not have is the failure, at the gather’s block; only the first failure is kept', async () => {
    const { results } = await play(
      welcome,
      [
        { type: 'speech_unavailable', action: 3, message: 'the PBX has no speech engine "vosk" (SPEECH CREATE answered 0)' },
        { type: 'prompt_failed', action: 0, message: 'the PBX could not play https://x.example/a.wav (audio_not_found)' },
        { type: 'hangup', actions_started: 4 },
      ],
      { storeAsJson: true },
    );
    expect(results[1]).toMatchObject({ actions: [], session: { status: 'waiting', failure: { code: 'speech_engine_unavailable', node_id: 'menu' } } });
    expect(results[3]!.report!.failure).toMatchObject({ code: 'speech_engine_unavailable', node_id: 'menu', message: expect.stringContaining('vosk') });
  });

  test('a recording that never came to exist is failed, with the channel’s reason', async () => {
    const { results } = await play(welcome, [{ type: 'hangup' }, { type: 'recording_failed', error: 'recording_not_found' }]);
    expect(results[2]!.report!.recording).toMatchObject({ status: 'failed', error: 'recording_not_found', url: null });
  });
});

describe('an outbound call nobody answered', () => {
  test.each(['busy', 'no_answer', 'failed'] as const)('%s: the session ends where it began, no block run, and its report says so', async (status) => {
    const ports = memoryPorts({ plans: [compilePlan(menuPlan)] });
    const result = await startSession({ ...init, direction: 'outbound', variables: { name: 'Ana' } }, ports, { unanswered: status });
    expect(result.actions).toEqual([]);
    expect(result.session).toMatchObject({ status: 'ended', path: [], dial_status: status, disposition: 'missed', hangup_cause: status === 'busy' ? 'busy' : null });
    expect(result.report).toMatchObject({ direction: 'outbound', dial_status: status, nodes: [], last_node: null, plan_name: 'Main line', plan_version: 4, duration_s: 0, variables: { name: 'Ana' } });
  });
});

describe('goals', () => {
  const goals = plan(
    [
      { id: 'start', type: 'start' },
      { id: 'hello', type: 'play_message', data: { voice_text: 'Welcome' } },
      { id: 'thanks', type: 'play_message', data: { voice_text: 'Paid, thanks', goal: 'paid' } },
      { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1' }], goal: 'menu reached' } },
    ],
    [
      ['start', 'next', 'hello'],
      ['hello', 'next', 'thanks'],
      ['thanks', 'next', 'menu'],
    ],
  );

  test('the report names the first goal the session reached, by the name a person gave it', async () => {
    const { results } = await play(goals, [{ type: 'hangup' }], { storeAsJson: true });
    expect(results[1]!.report!.goal).toBe('paid');
  });

  test('a session that reaches no goal block has none', async () => {
    const { results } = await play(menuPlan, [{ type: 'hangup' }]);
    expect(results[1]!.report!.goal).toBeNull();
  });

  describe('a plan entered through call_plan', () => {
    const shop = plan(
      [
        { id: 'start', type: 'start' },
        { id: 'browsed', type: 'play_message', data: { voice_text: 'Welcome', goal: 'browsed' } },
        { id: 'pay', type: 'call_plan', data: { plan_id: 2 } },
      ],
      [
        ['start', 'next', 'browsed'],
        ['browsed', 'next', 'pay'],
      ],
    );
    const payment = {
      ...plan(
        [
          { id: 'start', type: 'start' },
          { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1' }] } },
          { id: 'paid', type: 'play_message', data: { voice_text: 'Paid', goal: 'paid' } },
        ],
        [
          ['start', 'next', 'menu'],
          ['menu', '1', 'paid'],
        ],
      ),
      id: 2,
      name: 'Payment',
      version: 7,
    };
    const ports = memoryPorts({ plans: [compilePlan(shop), compilePlan(payment)] });
    const stored = (session: Session) => JSON.parse(JSON.stringify(session)) as Session;

    test('is on the report at the version run, with the first goal reached once there', async () => {
      const first = await startSession(init, ports);
      expect(first.session.called_plans).toEqual([{ plan_id: 2, plan_version: 7, path_index: 3 }]);
      const second = await handleEvent(stored(first.session), { type: 'digits', digits: '1' }, ports);
      // The session's goal is its first; the payment plan's is the first reached in it.
      expect(second.report!.goal).toBe('browsed');
      expect(second.report!.called_plans).toEqual([{ plan_id: 2, plan_version: 7, goal: 'paid' }]);
    });

    test('was not entered by a caller who hung up before it played anything', async () => {
      const first = await startSession(init, ports);
      const ended = await handleEvent(stored(first.session), { type: 'hangup', actions_started: 1 }, ports);
      expect(ended.report!.nodes.map((node) => node.node_id)).toEqual(['start', 'browsed']);
      expect(ended.report!.called_plans).toBeUndefined();
    });

    test('a session that called no plan has none on its report', async () => {
      const { results } = await play(goals, [{ type: 'hangup' }]);
      expect(results[1]!.report).not.toHaveProperty('called_plans');
    });
  });

  test('a goal block the caller hung up before hearing was not reached', async () => {
    const { results } = await play(goals, [{ type: 'hangup', actions_started: 1 }], { storeAsJson: true });
    expect(results[1]!.report!.nodes.map((node) => node.node_id)).toEqual(['start', 'hello']);
    expect(results[1]!.report!.goal).toBeNull();
  });
});
