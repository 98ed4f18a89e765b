/**
 * The AI in plans (issue 18) through the real server's session runtime and a local server playing
 * OpenAI's API: every exit of chatbot and speech detection on voice and chat, the recording's
 * analyses (transcription, anonymisation, sampling, minimum duration), the provider's errors
 * (401, 429, 500, a timeout), the cost guard, and the setting that hides and refuses the second
 * provider.
 */
import type { EngineEvent } from '@voxplan/engine';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createAiPort } from '../src/modules/ai/ai-port.ts';
import type { StartRequest, TurnOutcome } from '../src/modules/sessions/sessions.service.ts';
import { apiError, completion, type FakeOpenAi, silentWav, startFakeOpenAi, structured } from './fake-openai.ts';
import { createTenantMember, errorOf, metricOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';

const OPENAI_KEY = 'sk-tenant-openai-key-1';
const SIPPULSE_KEY = 'sp-tenant-second-key-2';
const TIMEOUT_MS = 400;
const TOKENS_PER_TURN = 300;

let fake: FakeOpenAi;
let server: TestServer;
let admin: string;
let member: TenantMember;
let keyless: TenantMember;
let sessionCount = 0;

const settings = { session_timeout_min: 10, chat_text: '', sync_with_voice_text: false, webhook: '' };

/** A plan around one block: each of its exits says which one it took, so a test reads the exit from what was said. */
function planAround(name: string, block: ReturnType<typeof planNode>, exits: string[]) {
  const nodes = [planNode('start', 'start'), block, ...exits.map((exit) => planNode(`after_${exit}`, 'play_message', { voice_text: `exit ${exit}`, chat_text: `exit ${exit}` }))];
  const edges = [planEdge('start', 'next', block.id), ...exits.map((exit) => planEdge(block.id, exit, `after_${exit}`))];
  return { name, settings, nodes, edges };
}

const chatbot = (data: Record<string, unknown> = {}) =>
  planAround(
    'Chatbot',
    planNode('bot', 'chatbot', { initial_text: 'Hello, how can I help?', additional_instructions: 'You sell ACME anvils.', max_turns: 3, ...data }),
    ['done', 'transfer', 'error'],
  );

const detection = planAround(
  'Detection',
  planNode('ask', 'speech_detection', {
    voice_text: 'Your name and city?',
    chat_text: 'Your name and city?',
    variables: [
      { name: 'name', description: "the customer's first name" },
      { name: 'city', description: 'the city they live in' },
    ],
    max_retries: 1,
    retry_text: 'Once more, please.',
    transcription_prompt: 'Brazilian cities',
    language: 'pt-BR',
  }),
  ['success', 'failed'],
);

function recordingPlan(data: Record<string, unknown>) {
  return {
    name: 'Recorded',
    settings,
    nodes: [planNode('start', 'start'), planNode('rec', 'recording', { format: 'mp3', ...data }), planNode('bye', 'hangup')],
    edges: [planEdge('start', 'next', 'rec'), planEdge('rec', 'next', 'bye')],
  };
}

const analyses = [
  { kind: 'sentiment', items: ['positive', 'negative'] },
  { kind: 'topics', items: ['billing', 'delivery'] },
  { kind: 'questions', items: ['Was the order late?'] },
  { kind: 'summary', max_length: 40 },
];

async function start(tenantId: number, plan: ReturnType<typeof planAround>, channel: 'voice' | 'chat'): Promise<TurnOutcome> {
  // Plan names are unique in a tenant.
  const planId = await storePlan(server.ctx, tenantId, { ...plan, name: `${plan.name} ${sessionCount + 1}` });
  const request: StartRequest = {
    id: `ai-session-${++sessionCount}`,
    tenant_id: tenantId,
    plan_id: planId,
    channel,
    provider: channel === 'voice' ? 'twilio' : 'webchat',
    caller: '+5581999990000',
    called: '+5581333330000',
  };
  return server.ctx.sessions.start(request);
}

let eventCount = 0;
const send = (sessionId: string, event: EngineEvent) => server.ctx.sessions.handleTurn(sessionId, `event-${++eventCount}`, event);
const say = (sessionId: string, channel: 'voice' | 'chat', text: string) => send(sessionId, channel === 'voice' ? { type: 'speech', text } : { type: 'message', text });

/** What the plan said or wrote in a turn. */
const textsOf = (outcome: TurnOutcome) => outcome.actions.flatMap((action) => (action.type === 'say' || action.type === 'reply' ? [action.text] : []));

/** Through the API, as an administrator does it: the server sees the change on the next call. */
async function setSecondProvider(isOn: boolean) {
  const found = await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name: 'feature_second_ai_provider' } })}`, token: admin });
  const id = found.json<Array<{ id: number }>>()[0]!.id;
  const saved = await server.call({ method: 'PATCH', url: `/configurations/${id}`, token: admin, payload: { value: String(isOn) } });
  expect(saved.statusCode, saved.body).toBe(200);
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  server = await startTestServer({
    OPENAI_BASE_URL: `${fake.url}/v1`,
    SIPPULSE_BASE_URL: `${fake.url}/sippulse/v1`,
    TWILIO_API_URL: `${fake.url}/twilio-api`,
    AI_TIMEOUT_MS: String(TIMEOUT_MS),
    AI_MAX_RETRIES: '2',
    AI_MAX_TOKENS_PER_TURN: String(TOKENS_PER_TURN),
  });
  // Recordings come from this machine's Twilio stand-in: its address is loopback, closed to requests for a tenant by default.
  await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
  admin = await server.login();
  member = await createTenantMember(server, admin, 'ai-tenant');
  keyless = await createTenantMember(server, admin, 'ai-keyless');
  const saved = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { openai_key: OPENAI_KEY } });
  expect(saved.statusCode, saved.body).toBe(200);
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

beforeEach(() => fake.reset());

describe.each(['chat', 'voice'] as const)('chatbot on %s', (channel) => {
  test('a conversation of several turns that the model ends with end_conversation takes done', async () => {
    const first = await start(member.tenantId, chatbot(), channel);
    expect(textsOf(first)).toEqual(['Hello, how can I help?']);
    if (channel === 'voice') expect(first.actions.at(-1)).toMatchObject({ type: 'gather', input: 'speech' });

    fake.script('/v1/chat/completions', completion('We have three anvils. Which size?'), completion(null, { toolCall: { name: 'end_conversation', arguments: { message: 'Thanks, goodbye!' } } }));
    const second = await say(first.session_id, channel, 'Which anvils do you sell?');
    expect(textsOf(second)).toEqual(['We have three anvils. Which size?']);
    expect(second.status).toBe('waiting');
    const third = await say(first.session_id, channel, 'None, thanks.');
    expect(textsOf(third)).toEqual(['Thanks, goodbye!', 'exit done']);

    const [ask, last] = fake.seen('/v1/chat/completions');
    expect(ask!.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(ask!.json).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: TOKENS_PER_TURN });
    const tools = (ask!.json!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(tools).toEqual(['end_conversation', 'transfer_to_human']);
    const messages = last!.json!.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).toBe('system');
    expect(messages[0]!.content).toContain('You sell ACME anvils.');
    expect(messages[0]!.content).toContain(channel === 'voice' ? 'phone' : 'text messages');
    // The history goes with each turn: the initial text, the first exchange, the new input.
    expect(messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello, how can I help?' },
      { role: 'user', content: 'Which anvils do you sell?' },
      { role: 'assistant', content: 'We have three anvils. Which size?' },
      { role: 'user', content: 'None, thanks.' },
    ]);
  });

  test('transfer_to_human takes transfer, saying its message', async () => {
    const first = await start(member.tenantId, chatbot(), channel);
    fake.script('/v1/chat/completions', completion(null, { toolCall: { name: 'transfer_to_human', arguments: { message: 'Connecting you to a person.' } } }));
    const next = await say(first.session_id, channel, 'I want to talk to a person');
    expect(textsOf(next)).toEqual(['Connecting you to a person.', 'exit transfer']);
  });

  test('max_turns answers without a tool call end the conversation as done', async () => {
    const first = await start(member.tenantId, chatbot({ max_turns: 2 }), channel);
    fake.script('/v1/chat/completions', completion('One.'), completion('Two.'));
    await say(first.session_id, channel, 'a');
    expect(textsOf(await say(first.session_id, channel, 'b'))).toEqual(['Two.', 'exit done']);
  });

  test('a key the provider refuses (401) takes error at once, without retries', async () => {
    const first = await start(member.tenantId, chatbot(), channel);
    fake.script('/v1/chat/completions', apiError(401, 'Incorrect API key provided'));
    expect(textsOf(await say(first.session_id, channel, 'hi'))).toEqual(['exit error']);
    expect(fake.seen('/v1/chat/completions')).toHaveLength(1);
  });
});

describe('chatbot: provider failures and keys', () => {
  test('a 429 and a 500 are retried with back-off, and the third attempt answers', async () => {
    const first = await start(member.tenantId, chatbot(), 'chat');
    fake.script('/v1/chat/completions', apiError(429, 'Rate limit', { 'retry-after-ms': '10' }), apiError(500, 'boom', { 'retry-after-ms': '10' }), completion('Here I am.'));
    expect(textsOf(await say(first.session_id, 'chat', 'hi'))).toEqual(['Here I am.']);
    expect(fake.seen('/v1/chat/completions')).toHaveLength(3);
  });

  test('5xx on every attempt takes error after the retries', async () => {
    const first = await start(member.tenantId, chatbot(), 'chat');
    const failing = apiError(503, 'unavailable', { 'retry-after-ms': '10' });
    fake.script('/v1/chat/completions', failing, failing, failing);
    expect(textsOf(await say(first.session_id, 'chat', 'hi'))).toEqual(['exit error']);
    expect(fake.seen('/v1/chat/completions')).toHaveLength(3);
  });

  test('a provider slower than AI_TIMEOUT_MS takes error', async () => {
    const first = await start(member.tenantId, chatbot(), 'voice');
    const slow = { ...completion('too late'), delayMs: TIMEOUT_MS * 3 };
    fake.script('/v1/chat/completions', slow, slow, slow);
    const startedAt = Date.now();
    expect(textsOf(await say(first.session_id, 'voice', 'hi'))).toEqual(['exit error']);
    expect(Date.now() - startedAt).toBeLessThan(TIMEOUT_MS * 3 * 3);
  });

  test('a tenant without a key takes error without calling anybody', async () => {
    const first = await start(keyless.tenantId, chatbot(), 'chat');
    expect(textsOf(await say(first.session_id, 'chat', 'hi'))).toEqual(['exit error']);
    expect(fake.requests).toEqual([]);
  });
});

describe('the second AI provider', () => {
  afterAll(() => setSecondProvider(false));

  test('off: its key is refused when saved, hidden when read, and never used', async () => {
    await setSecondProvider(true);
    const saved = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { openai_key: OPENAI_KEY, sippulse_ai_key: SIPPULSE_KEY } });
    expect(saved.statusCode, saved.body).toBe(200);
    await setSecondProvider(false);

    const read = await server.call({ method: 'GET', url: `/tenants/${member.tenantId}/integrations`, token: admin });
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('sippulse_ai_key');
    const refused = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { openai_key: OPENAI_KEY, sippulse_ai_key: 'sp-other' } });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe('second_ai_provider_disabled');

    const first = await start(member.tenantId, chatbot({ provider: 'sippulse' }), 'chat');
    expect(textsOf(await say(first.session_id, 'chat', 'hi'))).toEqual(['exit error']);
    expect(fake.requests).toEqual([]);

    // Saving the integrations while it is off keeps the hidden key for when it is turned on again.
    const resaved = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { openai_key: OPENAI_KEY } });
    expect(resaved.statusCode, resaved.body).toBe(200);
    await setSecondProvider(true);
    expect((await server.call({ method: 'GET', url: `/tenants/${member.tenantId}/integrations`, token: admin })).json()).toHaveProperty('sippulse_ai_key');
  });

  test('on: the chatbot talks to its own address with its own key', async () => {
    await setSecondProvider(true);
    const first = await start(member.tenantId, chatbot({ provider: 'sippulse', assistant_id: 'agent-model-7' }), 'chat');
    fake.script('/sippulse/v1/chat/completions', completion('Hi from the second provider.'));
    expect(textsOf(await say(first.session_id, 'chat', 'hi'))).toEqual(['Hi from the second provider.']);
    const [request] = fake.seen('/sippulse/v1/chat/completions');
    expect(request!.authorization).toBe(`Bearer ${SIPPULSE_KEY}`);
    expect(request!.json).toMatchObject({ model: 'agent-model-7' });
    expect(fake.seen('/v1/chat/completions').filter((seen) => !seen.path.startsWith('/sippulse'))).toEqual([]);
  });
});

describe.each(['chat', 'voice'] as const)('speech_detection on %s', (channel) => {
  test('the variables come from structured output built from their names and descriptions: success', async () => {
    const first = await start(member.tenantId, detection, channel);
    fake.script('/v1/chat/completions', structured({ name: 'Ana', city: 'Recife' }));
    const answered = await say(first.session_id, channel, 'Sou a Ana, de Recife');
    expect(textsOf(answered)).toEqual(['exit success']);
    expect((await server.ctx.sessions.find(first.session_id))!.session.variables).toMatchObject({ name: 'Ana', city: 'Recife' });

    const [request] = fake.seen('/v1/chat/completions');
    expect(request!.json!.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'variables',
        strict: true,
        schema: {
          type: 'object',
          properties: { name: { type: ['string', 'null'], description: "the customer's first name" }, city: { type: ['string', 'null'], description: 'the city they live in' } },
          required: ['name', 'city'],
          additionalProperties: false,
        },
      },
    });
    const messages = request!.json!.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.content).toContain('pt-BR');
    expect(messages[0]!.content).toContain('Brazilian cities');
    expect(messages[1]).toEqual({ role: 'user', content: 'Sou a Ana, de Recife' });
  });

  test('a variable the model leaves null is asked again, then the block takes failed', async () => {
    const first = await start(member.tenantId, detection, channel);
    fake.script('/v1/chat/completions', structured({ name: 'Ana', city: null }), structured({ name: 'Ana', city: null }));
    expect(textsOf(await say(first.session_id, channel, 'Ana'))).toEqual(['Once more, please.']);
    expect(textsOf(await say(first.session_id, channel, 'Ana again'))).toEqual(['exit failed']);
  });

  test('a provider error takes failed', async () => {
    const first = await start(member.tenantId, detection, channel);
    fake.script('/v1/chat/completions', apiError(401, 'bad key'));
    expect(textsOf(await say(first.session_id, channel, 'Ana de Recife'))).toEqual(['exit failed']);
  });
});

describe('recording analyses', () => {
  const chatLines = [
    'Oi, sou a Maria Souza, meu e-mail é maria.souza@example.com.br',
    'Meu telefone é +55 (81) 98765-4321, CPF 123.456.789-09',
    'e o CNPJ da empresa 12.345.678/0001-95. Minha entrega atrasou.',
  ];
  const personal = ['Maria', 'Souza', 'maria.souza@example.com.br', '98765-4321', '123.456.789-09', '12.345.678/0001-95'];

  test('anonymised: personal data leaves the conversation before any analysis, and the answer is kept to the plan’s choices', async () => {
    fake.script(
      '/v1/chat/completions',
      (request) => {
        const text = (request.json!.messages as Array<{ content: string }>)[1]!.content;
        return completion(text.replaceAll('Maria Souza', '[name]'));
      },
      structured({ sentiment: 'negative', topics: ['delivery', 'weather'], questions: [{ question: 'Was the order late?', answer: 'Yes' }], summary: 'A customer whose delivery was late and who wanted news.' }),
    );
    const port = createAiPort(server.ctx);
    const result = await port.analyse({
      tenantId: member.tenantId,
      sessionId: 'anonymised-chat',
      analyses: analyses as Parameters<typeof port.analyse>[0]['analyses'],
      source: { kind: 'transcript', text: chatLines.map((line) => `caller: ${line}`).join('\n') },
      anonymization: true,
    });
    expect(result).toEqual({
      ok: true,
      results: {
        sentiment: 'negative',
        // Only the plan's own topics, and the summary cut to its length.
        topics: ['delivery'],
        questions: [{ question: 'Was the order late?', answer: 'Yes' }],
        summary: 'A customer whose delivery was late and w',
        transcript: expect.stringContaining('caller: Oi, sou a [name], meu e-mail é [email]'),
      },
    });
    for (const value of personal) expect(JSON.stringify(result)).not.toContain(value);
    const [names, analysis] = fake.seen('/v1/chat/completions');
    const namesInput = (names!.json!.messages as Array<{ content: string }>)[1]!.content;
    // The structured data is gone before the model sees it; the names go in the model's pass.
    for (const value of personal.slice(2)) expect(namesInput).not.toContain(value);
    expect(namesInput).toContain('[email]');
    expect(namesInput).toContain('[cpf]');
    expect(namesInput).toContain('[cnpj]');
    expect(namesInput).toContain('[phone]');
    const analysed = JSON.stringify(analysis!.json!.messages);
    for (const value of personal) expect(analysed).not.toContain(value);
    expect(analysis!.json!.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'analysis', strict: true } });
  });

  test('chat: a conversation that ends is analysed and its results go on the report', async () => {
    fake.script('/v1/chat/completions', structured({ sentiment: 'positive', topics: ['billing'], questions: [], summary: 'Short.' }));
    const ended = await start(member.tenantId, recordingPlan({ analyses }) as ReturnType<typeof planAround>, 'chat');
    expect(ended.report?.recording).toMatchObject({ status: 'analysed', results: { sentiment: 'positive', topics: ['billing'], summary: 'Short.' }, error: null });
  });

  test('voice: the recording is fetched with the tenant’s Twilio credentials, transcribed, then analysed', async () => {
    const integrations = await server.call({
      method: 'PATCH',
      url: `/tenants/${member.tenantId}/integrations`,
      token: admin,
      payload: { openai_key: OPENAI_KEY, twilio_sid: 'AC0000000000000000000000000000000a', twilio_token: 'twilio-token-a' },
    });
    expect(integrations.statusCode, integrations.body).toBe(200);
    const call = await start(member.tenantId, recordingPlan({ analyses: [{ kind: 'summary', max_length: 100 }] }) as ReturnType<typeof planAround>, 'voice');
    expect(call.actions[0]).toEqual({ type: 'record', format: 'mp3' });
    const audio = Buffer.from('ID3 fake mp3 bytes');
    fake.script('/twilio-api/recordings/RE1', { body: audio });
    fake.script('/v1/audio/transcriptions', { body: { text: 'I would like to cancel my order.' } });
    fake.script('/v1/chat/completions', structured({ summary: 'Wants to cancel an order.' }));
    const ready = await send(call.session_id, { type: 'recording_ready', url: `${fake.url}/twilio-api/recordings/RE1`, duration_s: 30 });
    expect(ready.report?.recording).toMatchObject({ status: 'analysed', results: { summary: 'Wants to cancel an order.', transcript: 'I would like to cancel my order.' } });

    const [download] = fake.seen('/twilio-api/recordings/RE1');
    expect(download!.authorization).toBe(`Basic ${Buffer.from('AC0000000000000000000000000000000a:twilio-token-a').toString('base64')}`);
    const [transcription] = fake.seen('/v1/audio/transcriptions');
    expect(transcription!.contentType).toMatch(/^multipart\/form-data/);
    expect(transcription!.raw.toString()).toContain('ID3 fake mp3 bytes');
    expect(transcription!.raw.toString()).toContain('whisper-1');
    const [analysis] = fake.seen('/v1/chat/completions');
    expect(JSON.stringify(analysis!.json!.messages)).toContain('I would like to cancel my order.');
  });

  test('a recording that cannot be downloaded fails the analysis and counts as a media fetch failure in GET /metrics', async () => {
    const failures = () => metricOf(server, 'voxplan_media_fetch_failures_total{kind="recording"}');
    const before = await failures();
    const call = await start(member.tenantId, recordingPlan({ analyses: [{ kind: 'summary', max_length: 100 }] }) as ReturnType<typeof planAround>, 'voice');
    fake.script('/twilio-api/recordings/RE404', apiError(404, 'The requested resource was not found'));
    const ready = await send(call.session_id, { type: 'recording_ready', url: `${fake.url}/twilio-api/recordings/RE404`, duration_s: 30 });
    expect(ready.report?.recording).toMatchObject({ status: 'failed', error: 'ai_access_error' });
    expect(await failures()).toBe(before + 1);
    expect(fake.seen('/v1/audio/transcriptions')).toEqual([]);
  });

  test('sampling and the minimum duration: sessions outside them are recorded and not analysed', async () => {
    const none = await start(member.tenantId, recordingPlan({ analyses, percentage: 0 }) as ReturnType<typeof planAround>, 'chat');
    expect(none.report?.recording).toMatchObject({ status: 'recorded', results: null });
    const short = await start(member.tenantId, recordingPlan({ analyses, min_duration_s: 60 }) as ReturnType<typeof planAround>, 'voice');
    const ready = await send(short.session_id, { type: 'recording_ready', url: `${fake.url}/twilio-api/recordings/RE2`, duration_s: 59 });
    expect(ready.report?.recording).toMatchObject({ status: 'recorded', results: null });
    expect(fake.requests).toEqual([]);
  });

  test('a failed analysis is on the report with its code', async () => {
    fake.script('/v1/chat/completions', apiError(401, 'bad key'));
    const ended = await start(member.tenantId, recordingPlan({ analyses }) as ReturnType<typeof planAround>, 'chat');
    expect(ended.report?.recording).toMatchObject({ status: 'failed', error: 'ai_key_invalid' });
    const keylessEnd = await start(keyless.tenantId, recordingPlan({ analyses }) as ReturnType<typeof planAround>, 'chat');
    expect(keylessEnd.report?.recording).toMatchObject({ status: 'failed', error: 'ai_key_not_found' });
  });
});

describe('the cost guard', () => {
  // One minute for the whole test, whenever the wall clock's turns.
  const minute = Date.parse('2026-11-25T10:00:30Z');
  const portWith = (limits: Partial<TestServer['config']['ai']>) =>
    createAiPort({ ...server.ctx, config: { ...server.ctx.config, ai: { ...server.ctx.config.ai, ...limits } } }, { now: () => minute, metrics: server.ctx.metrics! });
  /** What GET /metrics says of the AI requests now. */
  const aiFigures = async () => ({
    ok: await metricOf(server, 'voxplan_ai_requests_total{operation="complete",result="ok"}'),
    refused: await metricOf(server, 'voxplan_ai_limit_refusals_total'),
    tokens: await metricOf(server, 'voxplan_ai_tokens_total'),
  });
  const ask = (port: ReturnType<typeof createAiPort>, sessionId: string) =>
    port.chat({ tenantId: member.tenantId, sessionId, provider: 'openai', assistantId: '', agentId: '', instructions: '', history: [], input: 'hi', channel: 'chat' });

  test('calls per tenant per minute: the one past the limit is refused with ai_limit_reached, without reaching the provider', async () => {
    const port = portWith({ callsPerTenantPerMinute: 2 });
    const before = await aiFigures();
    fake.script('/v1/chat/completions', completion('one'), completion('two'), completion('three'));
    expect(await ask(port, 'guard-a')).toMatchObject({ ok: true, reply: 'one' });
    expect(await ask(port, 'guard-b')).toMatchObject({ ok: true, reply: 'two' });
    expect(await ask(port, 'guard-c')).toEqual({ ok: false, code: 'ai_limit_reached', message: expect.any(String) });
    expect(fake.seen('/v1/chat/completions')).toHaveLength(2);
    // GET /metrics: two requests answered, one refused by the guard.
    expect(await aiFigures()).toMatchObject({ ok: before.ok + 2, refused: before.refused + 1 });
  });

  test('tokens per session: once the answers used the limit, the session gets no more calls; others still do', async () => {
    const port = portWith({ maxTokensPerSession: 50 });
    const before = await aiFigures();
    fake.script('/v1/chat/completions', completion('a', { tokens: 30 }), completion('b', { tokens: 30 }), completion('c', { tokens: 30 }));
    expect(await ask(port, 'tokens-1')).toMatchObject({ ok: true });
    expect(await ask(port, 'tokens-1')).toMatchObject({ ok: true });
    expect(await ask(port, 'tokens-1')).toMatchObject({ ok: false, code: 'ai_limit_reached' });
    expect(await ask(port, 'tokens-2')).toMatchObject({ ok: true, reply: 'c' });
    // GET /metrics: the tokens the three answers reported, and the refusal.
    expect(await aiFigures()).toEqual({ ok: before.ok + 3, refused: before.refused + 1, tokens: before.tokens + 90 });
  });
});

describe('AI voices for generated audios', () => {
  const voicesOf = async (token: string) => (await server.call({ method: 'GET', url: '/audios/voices', token })).json<{ voices: unknown[]; ai_voices: Array<{ id: string; name: string }> }>();

  test('offered beside espeak-ng’s to a tenant with an AI key, and to no other', async () => {
    const offered = await voicesOf(member.token);
    expect(offered.voices.length).toBeGreaterThan(0);
    expect(offered.ai_voices).toEqual(expect.arrayContaining([{ id: 'openai-nova', name: 'Nova' }]));
    expect((await voicesOf(keyless.token)).ai_voices).toEqual([]);
  });

  test('an AI voice speaks the text through audio/speech; the parts are joined into a ready audio', async () => {
    fake.script('/v1/audio/speech', { body: silentWav(700) }, { body: silentWav(700) });
    const sentence = 'This sentence is spoken by an AI voice while the request has already been answered. ';
    const created = await server.call({ method: 'POST', url: '/audios/tts', token: member.token, payload: { name: 'AI greeting', text: sentence.repeat(6), language: 'en-us', voice: 'openai-nova' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: number }>().id;
    let audio = created.json<{ status: string; duration_ms: number | null; voice: string }>();
    for (let attempt = 0; attempt < 100 && audio.status === 'generating'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      audio = (await server.call({ method: 'GET', url: `/audios/${id}`, token: member.token })).json();
    }
    expect(audio).toMatchObject({ status: 'ready', voice: 'openai-nova' });
    // Two parts of 0.7 s each.
    expect(audio.duration_ms).toBeGreaterThan(1300);
    const requests = fake.seen('/v1/audio/speech');
    expect(requests).toHaveLength(2);
    expect(requests[0]!.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(requests[0]!.json).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'nova', response_format: 'wav' });
    expect(requests.map((request) => request.json!.input).join('')).toBe(sentence.repeat(6).trim());
  });

  test('a tenant without a key is refused an AI voice with ai_key_not_found; an unknown one is invalid', async () => {
    const refused = await server.call({ method: 'POST', url: '/audios/tts', token: keyless.token, payload: { name: 'No key', text: 'Hello.', language: 'en-us', voice: 'openai-nova' } });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe('ai_key_not_found');
    const unknown = await server.call({ method: 'POST', url: '/audios/tts', token: member.token, payload: { name: 'Unknown', text: 'Hello.', language: 'en-us', voice: 'openai-robot' } });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown).code).toBe('invalid_input');
    expect(fake.requests).toEqual([]);
  });
});
