import type { CallReportRecord } from '@voxplan/contracts';
import type { SimulatorServerFrame } from '@voxplan/contracts/simulator';
import type { Action, PathEntry } from '@voxplan/engine';
import { describe, expect, test } from 'vitest';
import { initialSimulatorState, pathOnPlan, type SimulatorEvent, type SimulatorState, simulatorReducer } from './simulator-state.ts';

const PLAN = 7;
const entry = (node_id: string, type: string, exit: string | null = null, plan_id = PLAN): PathEntry => ({ plan_id, node_id, type, at: '2026-01-01T00:00:00.000Z', exit });
const frame = (value: SimulatorServerFrame): SimulatorEvent => ({ kind: 'frame', frame: value });
const node = (event_id: string, id: string, type: string, plan_id = PLAN) => frame({ type: 'node', event_id, node: entry(id, type, null, plan_id) });
const exit = (event_id: string, id: string, type: string, taken: string, plan_id = PLAN) => frame({ type: 'exit', event_id, node: entry(id, type, taken, plan_id) });
const action = (event_id: string, value: Action) => frame({ type: 'action', event_id, action: value });
const turn = (event_id: string, status: 'waiting' | 'ended' = 'waiting', ignored = false) =>
  frame({ type: 'turn', event_id, session_id: 's1', revision: 1, status, ignored, duplicate: false });
const gather: Action = { type: 'gather', input: 'dtmf', timeout_s: 5, max_digits: 1 };

const run = (events: SimulatorEvent[], from: SimulatorState = initialSimulatorState) => events.reduce(simulatorReducer, from);

/** A voice run up to the menu: start → voice_menu, which says its text and waits for keys. */
const atMenu = run([
  { kind: 'connection', status: 'open' },
  { kind: 'start', channel: 'voice', version: 'draft' },
  frame({ type: 'started', session_id: 's1', plan_id: PLAN, channel: 'voice', version: 'draft' }),
  node('start', 'start', 'start'),
  exit('start', 'start', 'start', 'next'),
  node('start', 'menu', 'voice_menu'),
  action('start', { type: 'say', text: 'Press 1 for sales' }),
  action('start', gather),
  turn('start'),
]);

const report = (variables: Record<string, string>): CallReportRecord =>
  ({ id: 1, session_id: 's1', disposition: 'retained', hangup_cause: 'normal_clearing', variables, nodes: [] }) as unknown as CallReportRecord;

describe('simulatorReducer', () => {
  test('a start runs the frames of its first turn into the path, the transcript and the prompt', () => {
    expect(atMenu.status).toBe('waiting');
    expect(atMenu.sessionId).toBe('s1');
    expect(atMenu.path.map((e) => [e.node_id, e.exit])).toEqual([
      ['start', 'next'],
      ['menu', null],
    ]);
    expect(atMenu.current?.node_id).toBe('menu');
    expect(atMenu.transcript.map((e) => (e.from === 'plan' ? e.action.type : e.from))).toEqual(['say', 'gather']);
    expect(atMenu.prompt).toEqual({ kind: 'gather', action: gather });
  });

  test('an outbound call nobody answered: the number and the callee from `started`, then the report ends the run with no block entered; a new run forgets them', () => {
    const unanswered = run([
      { kind: 'connection', status: 'open' },
      { kind: 'start', channel: 'voice', version: 'draft' },
      frame({ type: 'started', session_id: 's2', plan_id: PLAN, channel: 'voice', version: 'draft', outbound: { to: '+5511912345678', callee: 'busy' } }),
      frame({ type: 'ended', event_id: 'start', session_id: 's2', report: report({}) }),
      turn('start', 'ended'),
    ]);
    expect(unanswered.outbound).toEqual({ to: '+5511912345678', callee: 'busy' });
    expect(unanswered.status).toBe('ended');
    expect(unanswered.path).toEqual([]);
    expect(unanswered.report?.session_id).toBe('s1');
    expect(run([{ kind: 'start', channel: 'voice', version: 'draft' }], unanswered).outbound).toBeNull();
  });

  test('an input runs while its frames come, then the path moves on and the report ends the run', () => {
    const sent = run([{ kind: 'input', input: { type: 'digits', id: 'i1', digits: '1' } }], atMenu);
    expect(sent.status).toBe('running');
    expect(sent.transcript.at(-1)).toEqual({ from: 'caller', input: { type: 'digits', id: 'i1', digits: '1' } });
    const ended = run(
      [
        exit('i1', 'menu', 'voice_menu', '1'),
        node('i1', 'bye', 'play_message'),
        action('i1', { type: 'say', text: 'Goodbye' }),
        action('i1', { type: 'hangup', cause: 'normal_clearing' }),
        frame({ type: 'ended', event_id: 'i1', session_id: 's1', report: report({ choice: '1' }) }),
        turn('i1', 'ended'),
      ],
      sent,
    );
    expect(ended.status).toBe('ended');
    expect(ended.prompt).toBeNull();
    expect(ended.report?.disposition).toBe('retained');
    expect(ended.variables).toEqual({ choice: '1' });
    expect(pathOnPlan(ended, PLAN)).toEqual({
      nodeIds: ['start', 'menu', 'bye'],
      exits: [
        { nodeId: 'start', exit: 'next' },
        { nodeId: 'menu', exit: '1' },
      ],
      current: 'bye',
    });
  });

  test('an input the session ignored keeps the prompt it still waits on', () => {
    const ignored = run([{ kind: 'input', input: { type: 'speech', id: 'i1', text: 'sales' } }, turn('i1', 'waiting', true)], atMenu);
    expect(ignored.status).toBe('waiting');
    expect(ignored.prompt).toEqual({ kind: 'gather', action: gather });
  });

  test("a chat menu offers its options, a plain reply after it none; a hand-off waits for the server's outcome", () => {
    const chat = run([
      { kind: 'start', channel: 'chat', version: 'published' },
      node('start', 'menu', 'voice_menu'),
      action('start', { type: 'reply', text: 'Choose', options: [{ id: '1', label: 'Sales' }] }),
      turn('start'),
    ]);
    expect(chat.prompt).toEqual({ kind: 'options', options: [{ id: '1', label: 'Sales' }] });
    const dialling = run(
      [
        { kind: 'input', input: { type: 'message', id: 'i1', text: '1' }, label: 'Sales' },
        exit('i1', 'menu', 'voice_menu', '1'),
        node('i1', 'sales', 'destination'),
        action('i1', { type: 'dial', destination_id: 3, name: 'Sales', uri: 'https://example.com/chat', timeout_s: 30 }),
        turn('i1'),
      ],
      chat,
    );
    // A chat's hand-off is posted by the server: nothing for the tester to pick, until its outcome comes.
    expect(dialling.prompt?.kind).toBe('handoff');
    const handedOff = run(
      [exit('simulator:handoff', 'sales', 'destination', 'busy'), node('simulator:handoff', 'bye', 'play_message'), action('simulator:handoff', { type: 'reply', text: 'Bye!' })],
      dialling,
    );
    expect(handedOff.prompt).toBeNull();
    expect(handedOff.path.map((e) => [e.node_id, e.exit]).slice(-2)).toEqual([
      ['sales', 'busy'],
      ['bye', null],
    ]);
    // A chatbot's plain reply after the menu: the menu's options are gone with the menu.
    const chatting = run(
      [
        { kind: 'input', input: { type: 'message', id: 'i2', text: '2' } },
        exit('i2', 'menu', 'voice_menu', '2'),
        node('i2', 'bot', 'chatbot'),
        action('i2', { type: 'reply', text: 'How can I help?' }),
        turn('i2'),
      ],
      chat,
    );
    expect(chatting.prompt).toBeNull();
    expect(dialling.transcript[1]).toEqual({ from: 'caller', input: { type: 'message', id: 'i1', text: '1' }, label: 'Sales' });
  });

  test('a discarded input goes back to where it started, and its frames coming again count once', () => {
    const sent = run([{ kind: 'input', input: { type: 'digits', id: 'i1', digits: '1' } }], atMenu);
    const firstTry = run([exit('i1', 'menu', 'voice_menu', '1'), node('i1', 'bye', 'play_message'), action('i1', { type: 'say', text: 'Goodbye' })], sent);
    const discarded = run([frame({ type: 'discarded', event_id: 'i1' })], firstTry);
    expect(discarded.path).toEqual(sent.path);
    expect(discarded.transcript).toEqual(sent.transcript);
    const again = run([exit('i1', 'menu', 'voice_menu', '1'), node('i1', 'bye', 'play_message'), action('i1', { type: 'say', text: 'Goodbye' }), turn('i1')], discarded);
    expect(again.path.map((e) => e.node_id)).toEqual(['start', 'menu', 'bye']);
    expect(again.transcript.filter((e) => e.from === 'plan' && e.action.type === 'say')).toHaveLength(2);
  });

  test("a restart drops the old run: the hang-up of the session it replaces shows nothing", () => {
    const restarted = run(
      [
        { kind: 'start', channel: 'chat', version: 'draft' },
        action('simulator:restart', { type: 'hangup', cause: 'caller_hangup' }),
        frame({ type: 'ended', event_id: 'simulator:restart', session_id: 's1', report: report({}) }),
        turn('simulator:restart', 'ended'),
        frame({ type: 'started', session_id: 's2', plan_id: PLAN, channel: 'chat', version: 'draft' }),
        node('start', 'start', 'start'),
      ],
      atMenu,
    );
    expect(restarted.sessionId).toBe('s2');
    expect(restarted.channel).toBe('chat');
    expect(restarted.report).toBeNull();
    expect(restarted.transcript).toEqual([]);
    expect(restarted.path.map((e) => e.node_id)).toEqual(['start']);
  });

  test('errors are kept with their input; a refused start leaves no session, a refused input the session as it was', () => {
    const error = { statusCode: 400, name: 'Bad Request', message: 'not published', code: 'plan_not_published' as const };
    const refused = run([{ kind: 'start', channel: 'voice', version: 'published' }, frame({ type: 'error', event_id: 'start', error })]);
    expect(refused.status).toBe('none');
    expect(refused.errors).toEqual([{ eventId: 'start', error }]);
    const busy = { ...error, statusCode: 409, code: 'session_busy' as const };
    const refusedInput = run([{ kind: 'input', input: { type: 'digits', id: 'i1', digits: '1' } }, frame({ type: 'error', event_id: 'i1', error: busy })], atMenu);
    expect(refusedInput.status).toBe('waiting');
    expect(refusedInput.prompt).toEqual(atMenu.prompt);
  });

  test('a lost socket ends the run it carried; a refusal keeps its reason', () => {
    const lost = run([{ kind: 'connection', status: 'closed' }], atMenu);
    expect(lost.status).toBe('ended');
    expect(lost.prompt).toBeNull();
    const error = { statusCode: 403, name: 'Forbidden', message: 'read only', code: 'readonly_only' as const };
    const refused = run([{ kind: 'connection', status: 'refused', error }]);
    expect(refused.connection).toBe('refused');
    expect(refused.errors).toEqual([{ eventId: null, error }]);
  });

  test("with the plan's edges, the path names the edges its exits followed", () => {
    const edges = [
      { id: 'e1', source: 'start', source_exit: 'next' },
      { id: 'e2', source: 'menu', source_exit: '1' },
      { id: 'e3', source: 'menu', source_exit: '2' },
    ];
    expect(pathOnPlan(atMenu, PLAN, edges).edgeIds).toEqual(['e1']);
    const pressed = run([exit('i1', 'menu', 'voice_menu', '2'), node('i1', 'bye', 'hangup')], atMenu);
    expect(pathOnPlan(pressed, PLAN, edges).edgeIds).toEqual(['e1', 'e3']);
    expect(pathOnPlan(pressed, PLAN)).not.toHaveProperty('edgeIds');
  });

  test('the canvas path leaves out blocks of the plans it called', () => {
    const called = run([exit('x', 'menu', 'voice_menu', '2'), node('x', 'call', 'call_plan'), exit('x', 'call', 'call_plan', 'next'), node('x', 'start', 'start', 99)], atMenu);
    expect(pathOnPlan(called, PLAN)).toEqual({
      nodeIds: ['start', 'menu', 'call'],
      exits: [
        { nodeId: 'start', exit: 'next' },
        { nodeId: 'menu', exit: '2' },
        { nodeId: 'call', exit: 'next' },
      ],
    });
  });
});
