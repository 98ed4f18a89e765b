import { compilePlan } from '@voxplan/blocks/runtime';
import { describe, expect, test } from 'vitest';
import type { EngineEvent } from './events.ts';
import { handleEvent, startSession } from './interpreter.ts';
import { engineLimits } from './limits.ts';
import type { Session } from './session.ts';
import { init, menuPlan, play, plan } from './testing/interpreter-plans.ts';
import { memoryPorts } from './testing/memory-ports.ts';

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
