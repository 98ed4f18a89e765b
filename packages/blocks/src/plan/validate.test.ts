import { describe, expect, test } from 'vitest';
import { planDocument } from '../test-helpers.ts';
import { migratePlanDocument, PlanFormatError } from './document.ts';
import { callPlanCycles, settingsOff } from './lint.ts';
import { planReferences } from './references.ts';
import { type PlanValidation, readPlanDocument, PlanValidationError, validatePlanDocument } from './validate.ts';

const errorsOf = (result: PlanValidation) => result.errors.map(({ code, node_id, edge_id, path }) => ({ code, node_id, edge_id, path }));
const warningsOf = (result: PlanValidation) => result.warnings.map(({ code, node_id, path }) => ({ code, node_id, path }));

const menu = { id: 'menu', type: 'voice_menu', data: { voice_text: 'Press 1', options: [{ digits: '1', label: 'Sales' }] } };

describe('structural validation', () => {
  test('a valid plan comes back with the defaults of every block filled in', () => {
    const result = validatePlanDocument(planDocument([{ id: 'start', type: 'start' }, menu], [['start', 'next', 'menu']]));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.document.settings).toEqual({ session_timeout_min: 30, chat_text: '', sync_with_voice_text: false, webhook: '', language: '', twilio_voice: '', tts_voice: '' });
    expect(result.document.nodes[0]!.data).toEqual({ generate_protocol: false, hangup_chat_message: '', ignore_call: false });
    expect(result.document.nodes[1]!.data).toMatchObject({ max_digits: 1, timeout_s: 5, max_retries: 3, text_to_speech: true, audio_id: null });
    // Plain JSON: what validation returns can be stored as it is.
    expect(JSON.parse(JSON.stringify(result.document))).toEqual(result.document);
  });

  test("a block's invalid field is reported with the node's id and the field's path in its data", () => {
    const result = validatePlanDocument(
      planDocument([
        { id: 'start', type: 'start' },
        { id: 'm', type: 'voice_menu', data: { options: [{ digits: '1x' }, { digits: '12' }], max_digits: 1, timeout_s: 0 } },
        { id: 'v', type: 'variable', data: { assignments: [{ name: 'caller', value: '=1 +' }] } },
        { id: 'x', type: 'fx', data: { script: 'return "a"', returns: ['a', 'a', 'error'], extra: true } },
      ]),
    );
    expect(errorsOf(result)).toEqual(
      expect.arrayContaining([
        { code: 'invalid_field', node_id: 'm', edge_id: undefined, path: 'options.0.digits' },
        { code: 'invalid_field', node_id: 'm', edge_id: undefined, path: 'timeout_s' },
        { code: 'reserved_name', node_id: 'v', edge_id: undefined, path: 'assignments.0.name' },
        { code: 'invalid_expression', node_id: 'v', edge_id: undefined, path: 'assignments.0.value' },
        { code: 'invalid_field', node_id: 'x', edge_id: undefined, path: '' },
      ]),
    );
    const fx = validatePlanDocument(planDocument([{ id: 'start', type: 'start' }, { id: 'x', type: 'fx', data: { script: 'return "a"', returns: ['a', 'a', 'error'] } }]));
    expect(errorsOf(fx)).toEqual([
      { code: 'duplicate_value', node_id: 'x', edge_id: undefined, path: 'returns.1' },
      { code: 'reserved_name', node_id: 'x', edge_id: undefined, path: 'returns.2' },
    ]);
    const digits = validatePlanDocument(planDocument([{ id: 'start', type: 'start' }, { id: 'm', type: 'voice_menu', data: { options: [{ digits: '12' }] } }]));
    expect(errorsOf(digits)).toEqual([{ code: 'invalid_field', node_id: 'm', edge_id: undefined, path: 'options.0.digits' }]);
  });

  test.each(['http_request', 'api_switch'])('%s: a body that is not JSON is refused (invalid_json)', (type) => {
    const data = { url: 'https://api.example/x', method: 'POST', body: '{"caller": {{caller}}}', ...(type === 'api_switch' ? { attribute: 'status' } : {}) };
    const result = validatePlanDocument(planDocument([{ id: 'start', type: 'start' }, { id: 'req', type, data }]));
    expect(errorsOf(result)).toEqual([{ code: 'invalid_json', node_id: 'req', edge_id: undefined, path: 'body' }]);
    const fixed = validatePlanDocument(planDocument([{ id: 'start', type: 'start' }, { id: 'req', type, data: { ...data, body: '{"caller": "{{caller}}"}' } }]));
    expect(fixed.ok).toBe(true);
  });

  test('edges must join existing nodes by exits their source has, each exit to one block', () => {
    const result = validatePlanDocument(
      planDocument(
        [{ id: 'start', type: 'start' }, menu, { id: 'end', type: 'hangup' }],
        [
          ['start', 'next', 'menu'],
          ['menu', '1', 'end'],
          ['menu', '1', 'menu'],
          ['menu', '9', 'end'],
          ['end', 'next', 'menu'],
          ['ghost', 'next', 'end'],
          ['menu', 'timeout', 'nowhere'],
        ],
      ),
    );
    expect(errorsOf(result)).toEqual([
      { code: 'exit_already_connected', node_id: undefined, edge_id: 'e2', path: 'source_exit' },
      { code: 'unknown_exit', node_id: undefined, edge_id: 'e3', path: 'source_exit' },
      { code: 'unknown_exit', node_id: undefined, edge_id: 'e4', path: 'source_exit' },
      { code: 'unknown_node', node_id: undefined, edge_id: 'e5', path: 'source' },
      { code: 'unknown_node', node_id: undefined, edge_id: 'e6', path: 'target' },
    ]);
  });

  test('exactly one start block, unique ids and known block types', () => {
    expect(errorsOf(validatePlanDocument(planDocument([{ id: 'end', type: 'hangup' }])))).toEqual([
      { code: 'missing_start', node_id: undefined, edge_id: undefined, path: 'nodes' },
    ]);
    const result = validatePlanDocument(
      planDocument([
        { id: 'a', type: 'start' },
        { id: 'b', type: 'start' },
        { id: 'a', type: 'hangup' },
        { id: 'c', type: 'teleport' },
      ]),
    );
    expect(errorsOf(result)).toEqual([
      { code: 'duplicate_id', node_id: undefined, edge_id: undefined, path: 'nodes.2.id' },
      { code: 'unknown_block_type', node_id: 'c', edge_id: undefined, path: 'type' },
      { code: 'multiple_starts', node_id: 'b', edge_id: undefined, path: 'type' },
    ]);
  });

  test('a plan that calls itself is refused when its id is known', () => {
    const document = planDocument([{ id: 'start', type: 'start' }, { id: 'again', type: 'call_plan', data: { plan_id: 7 } }], [['start', 'next', 'again']]);
    expect(validatePlanDocument(document).ok).toBe(true);
    expect(errorsOf(validatePlanDocument(document, { planId: 7 }))).toEqual([{ code: 'plan_calls_itself', node_id: 'again', edge_id: undefined, path: 'plan_id' }]);
  });

  test('a malformed envelope names the node when it can', () => {
    const document = planDocument([{ id: 'start', type: 'start' }]);
    (document.nodes[0] as { position: unknown }).position = { x: 'left' };
    expect(errorsOf(validatePlanDocument(document))).toEqual([
      { code: 'invalid_field', node_id: 'start', edge_id: undefined, path: 'position.x' },
      { code: 'invalid_field', node_id: 'start', edge_id: undefined, path: 'position.y' },
    ]);
    expect(errorsOf(validatePlanDocument({ ...planDocument([]), nodes: 'none' }))).toEqual([{ code: 'invalid_field', node_id: undefined, edge_id: undefined, path: 'nodes' }]);
  });

  test('readPlanDocument throws the errors for a stored document that is not valid', () => {
    expect(() => readPlanDocument(planDocument([]))).toThrow(PlanValidationError);
  });
});

describe('format versions', () => {
  test('a document from before format versions is migrated on read', () => {
    const old = { settings: { chat_text: 'bye' }, nodes: [{ id: 'start', type: 'start' }] };
    expect(migratePlanDocument(old)).toEqual({ settings: { chat_text: 'bye' }, nodes: [{ id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} }], edges: [], format_version: 2 });
    expect(validatePlanDocument(old).ok).toBe(true);
  });

  test("format 1's chat hand-off, which waited the ring's seconds, waits the default 10 minutes; a call keeps its ring", () => {
    const destination = { id: 'desk', type: 'destination', position: { x: 0, y: 0 }, data: { destination_id: 2, timeout_s: 45 } };
    const migrated = migratePlanDocument({ format_version: 1, nodes: [{ id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} }, destination], edges: [] }) as {
      nodes: Array<{ data: object }>;
      format_version: number;
    };
    expect(migrated.format_version).toBe(2);
    expect(migrated.nodes[1]!.data).toEqual({ destination_id: 2, timeout_s: 45, chat_wait_min: 10 });
    expect(migrated.nodes[0]!.data).toEqual({});
  });

  test('a document from a newer format is refused, not guessed at', () => {
    expect(() => migratePlanDocument({ format_version: 3, nodes: [] })).toThrow(PlanFormatError);
    expect(errorsOf(validatePlanDocument({ format_version: 3, nodes: [] }))).toEqual([
      { code: 'unsupported_format', node_id: undefined, edge_id: undefined, path: 'format_version' },
    ]);
    expect(() => migratePlanDocument('[]')).toThrow(PlanFormatError);
  });
});

describe('lint', () => {
  test('warns about unreachable blocks and unconnected exits, and about a menu without timeout or invalid', () => {
    const result = validatePlanDocument(
      planDocument(
        [{ id: 'start', type: 'start' }, menu, { id: 'sales', type: 'hangup' }, { id: 'island', type: 'play_message', data: { voice_text: 'x' } }],
        [
          ['start', 'next', 'menu'],
          ['menu', '1', 'sales'],
        ],
      ),
    );
    expect(warningsOf(result)).toEqual([
      { code: 'voice_menu_exit_unconnected', node_id: 'menu', path: 'exits.timeout' },
      { code: 'voice_menu_exit_unconnected', node_id: 'menu', path: 'exits.invalid' },
      { code: 'unreachable', node_id: 'island', path: '' },
    ]);
  });

  test('warns about a message block with no text and no audio, which says nothing; one with either is left alone', () => {
    const result = validatePlanDocument(
      planDocument(
        [
          { id: 'start', type: 'start' },
          { id: 'silent', type: 'play_message', data: { voice_text: '  ', chat_text: '' } },
          { id: 'audio', type: 'play_message', data: { text_to_speech: false, audio_id: 9 } },
          { id: 'chat', type: 'play_message', data: { chat_text: 'Hello' } },
          { id: 'bye', type: 'hangup' },
        ],
        [
          ['start', 'next', 'silent'],
          ['silent', 'next', 'audio'],
          ['audio', 'next', 'chat'],
          ['chat', 'next', 'bye'],
        ],
      ),
    );
    expect(warningsOf(result)).toEqual([{ code: 'message_empty', node_id: 'silent', path: 'voice_text' }]);
  });

  test("a destination's answer exit may stay unconnected without a warning: the bridge is the call", () => {
    const result = validatePlanDocument(
      planDocument(
        [{ id: 'start', type: 'start' }, { id: 'dest', type: 'destination', data: { destination_id: 1 } }, { id: 'end', type: 'hangup' }],
        [['start', 'next', 'dest'], ['dest', 'busy', 'end'], ['dest', 'no_answer', 'end']],
      ),
    );
    expect(warningsOf(result)).toEqual([{ code: 'unconnected_exit', node_id: 'dest', path: 'exits.failed' }]);
  });

  test('warns about a loop that waits for no input, not about one through a menu', () => {
    const busy = validatePlanDocument(
      planDocument(
        [
          { id: 'start', type: 'start' },
          { id: 'count', type: 'variable', data: { assignments: [{ name: 'n', value: '=n + 1' }] } },
          { id: 'check', type: 'condition', data: { rules: [{ left: '{{n}}', op: 'lt', right: '3' }] } },
          { id: 'end', type: 'hangup' },
        ],
        [
          ['start', 'next', 'count'],
          ['count', 'next', 'check'],
          ['check', 'true', 'count'],
          ['check', 'false', 'end'],
        ],
      ),
    );
    expect(warningsOf(busy)).toEqual([{ code: 'loop_without_input', node_id: 'count', path: '' }]);

    const waiting = validatePlanDocument(
      planDocument(
        [{ id: 'start', type: 'start' }, menu, { id: 'again', type: 'play_message', data: { voice_text: 'Again' } }],
        [
          ['start', 'next', 'menu'],
          ['menu', '1', 'again'],
          ['menu', 'timeout', 'again'],
          ['menu', 'invalid', 'again'],
          ['again', 'next', 'menu'],
        ],
      ),
    );
    expect(warningsOf(waiting)).toEqual([]);

    const selfLoop = validatePlanDocument(planDocument([{ id: 'start', type: 'start' }, { id: 'spin', type: 'voice_chat_switch' }], [['start', 'next', 'spin'], ['spin', 'voice', 'spin'], ['spin', 'chat', 'spin']]));
    expect(warningsOf(selfLoop)).toEqual([{ code: 'loop_without_input', node_id: 'spin', path: '' }]);
  });
});

test('references name every destination, audio, date range and plan a plan points at', () => {
  const result = validatePlanDocument(
    planDocument([
      { id: 'start', type: 'start' },
      { id: 'dest', type: 'destination', data: { destination_id: 4 } },
      { id: 'hours', type: 'date_range', data: { date_range_id: 2 } },
      { id: 'audio', type: 'play_message', data: { text_to_speech: false, audio_id: 9 } },
      { id: 'spoken', type: 'play_message', data: { voice_text: 'no audio' } },
      { id: 'other', type: 'call_plan', data: { plan_id: 3 } },
    ]),
  );
  expect(result.ok).toBe(true);
  if (!result.ok) return;
  expect(planReferences(result.document)).toEqual([
    { node_id: 'dest', path: 'destination_id', kind: 'destination', id: 4 },
    { node_id: 'hours', path: 'date_range_id', kind: 'date_range', id: 2 },
    { node_id: 'audio', path: 'audio_id', kind: 'audio', id: 9 },
    { node_id: 'other', path: 'plan_id', kind: 'plan', id: 3 },
  ]);
});

describe('call_plan cycles between plans', () => {
  const caller = (calls: Array<[string, number]>) => {
    const result = validatePlanDocument(
      planDocument([{ id: 'start', type: 'start' }, ...calls.map(([id, plan_id]) => ({ id, type: 'call_plan', data: { plan_id } }))], [['start', 'next', calls[0]![0]]]),
      { planId: 1 },
    );
    if (!result.ok) throw new Error('the test plan should be valid');
    return result.document;
  };
  const cyclesOf = (document: ReturnType<typeof caller>, calls: Array<[number, number[]]>) =>
    callPlanCycles(document, 1, new Map(calls)).map(({ code, node_id, path, message }) => ({ code, node_id, path, message }));

  test('a call that comes back to this plan is named with the route it takes', () => {
    expect(cyclesOf(caller([['to_b', 2]]), [[2, [1]]])).toEqual([
      { code: 'call_plan_cycle', node_id: 'to_b', path: 'plan_id', message: expect.stringContaining('1 → 2 → 1') },
    ]);
    // The shortest way back is the one told.
    expect(cyclesOf(caller([['to_b', 2]]), [[2, [3, 4]], [3, [5]], [5, [1]], [4, [1]]])[0]!.message).toContain('1 → 2 → 4 → 1');
  });

  test('calls that never come back, and other plans\' own cycles, are left alone', () => {
    expect(cyclesOf(caller([['to_b', 2]]), [[2, [3]], [3, [2]]])).toEqual([]);
    expect(cyclesOf(caller([['to_b', 2], ['to_c', 3]]), [[2, []], [3, [4]], [4, [1]]]).map((w) => w.node_id)).toEqual(['to_c']);
    expect(cyclesOf(caller([['to_b', 2]]), [])).toEqual([]);
  });
});

describe('choices whose system setting is off', () => {
  const plan = validatePlanDocument(
    planDocument(
      [
        { id: 'start', type: 'start' },
        { id: 'second', type: 'chatbot', data: { provider: 'sippulse' } },
        { id: 'first', type: 'chatbot', data: { provider: 'openai' } },
      ],
      [
        ['start', 'next', 'second'],
        ['second', 'done', 'first'],
      ],
    ),
  );
  if (!plan.ok) throw new Error('the test plan should be valid');
  const warned = (on: readonly string[]) => settingsOff(plan.document, (setting) => on.includes(setting)).map(({ code, node_id, path }) => ({ code, node_id, path }));

  test('a chatbot on the second AI provider is warned about while feature_second_ai_provider is off, and only then', () => {
    expect(warned([])).toEqual([{ code: 'setting_off', node_id: 'second', path: 'provider' }]);
    expect(warned(['feature_second_ai_provider'])).toEqual([]);
  });
});

describe('the plan’s language and voices', () => {
  const start = [{ id: 'start', type: 'start' }];
  const withSettings = (settings: Record<string, unknown>) => validatePlanDocument(planDocument(start, [], { settings }));

  test('a plan saved before languages stays valid and speaks its tenant’s language', () => {
    const old = { settings: { chat_text: 'bye' }, nodes: [{ id: 'start', type: 'start' }, { id: 'ask', type: 'speech_detection', data: { variables: [{ name: 'x' }] } }] };
    const result = validatePlanDocument(old);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.document.settings).toMatchObject({ language: '', twilio_voice: '', tts_voice: '' });
    expect(result.document.nodes[1]!.data).toMatchObject({ language: '' });
  });

  test('a Twilio voice of the plan’s language is taken; one of another language, or with no language chosen, is refused', () => {
    expect(withSettings({ language: 'pt-BR', twilio_voice: 'Polly.Camila' }).ok).toBe(true);
    expect(withSettings({ language: 'en-US', twilio_voice: 'Google.en-US-Neural2-C', tts_voice: 'f2' }).ok).toBe(true);
    for (const settings of [{ language: 'en-US', twilio_voice: 'Polly.Camila' }, { language: '', twilio_voice: 'Polly.Joanna' }, { language: 'pt-BR', twilio_voice: 'Polly.Nobody' }]) {
      expect(errorsOf(withSettings(settings)), JSON.stringify(settings)).toEqual([{ code: 'voice_language_mismatch', node_id: undefined, edge_id: undefined, path: 'settings.twilio_voice' }]);
    }
  });

  test('a language or an espeak-ng voice outside the voices list is refused', () => {
    expect(errorsOf(withSettings({ language: 'xx-YY' }))).toEqual([expect.objectContaining({ code: 'invalid_field', path: 'settings.language' })]);
    expect(errorsOf(withSettings({ tts_voice: 'Demonic' }))).toEqual([expect.objectContaining({ code: 'invalid_field', path: 'settings.tts_voice' })]);
    const block = planDocument([...start, { id: 'msg', type: 'play_message', data: { voice_text: 'Hi', language: 'tlh' } }], [['start', 'next', 'msg']]);
    expect(errorsOf(validatePlanDocument(block))).toEqual([expect.objectContaining({ code: 'invalid_field', node_id: 'msg', path: 'language' })]);
  });
});
