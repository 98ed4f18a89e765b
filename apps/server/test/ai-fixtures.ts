/**
 * The set-up of ai.test.ts and ai-analyses.test.ts: a server talking to a local server that plays OpenAI's
 * API, a tenant with a key and one without, plans around one AI block, and the calls that start
 * sessions and send their events. The bindings are set by useAiServer's hooks.
 */
import type { EngineEvent } from '@voxplan/engine';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { StartRequest, TurnOutcome } from '../src/modules/sessions/sessions.service.ts';
import { type FakeOpenAi, startFakeOpenAi } from './fake-openai.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode, storePlan } from './sessions-helpers.ts';

export const OPENAI_KEY = 'sk-tenant-openai-key-1';
export const SIPPULSE_KEY = 'sp-tenant-second-key-2';
export const TIMEOUT_MS = 400;
export const TOKENS_PER_TURN = 300;

export let fake: FakeOpenAi;
export let server: TestServer;
export let admin: string;
export let member: TenantMember;
export let keyless: TenantMember;
let sessionCount = 0;

const settings = { session_timeout_min: 10, chat_text: '', sync_with_voice_text: false, webhook: '' };

/** A plan around one block: each of its exits says which one it took, so a test reads the exit from what was said. */
export function planAround(name: string, block: ReturnType<typeof planNode>, exits: string[]) {
  const nodes = [planNode('start', 'start'), block, ...exits.map((exit) => planNode(`after_${exit}`, 'play_message', { voice_text: `exit ${exit}`, chat_text: `exit ${exit}` }))];
  const edges = [planEdge('start', 'next', block.id), ...exits.map((exit) => planEdge(block.id, exit, `after_${exit}`))];
  return { name, settings, nodes, edges };
}

export const chatbot = (data: Record<string, unknown> = {}) =>
  planAround(
    'Chatbot',
    planNode('bot', 'chatbot', { initial_text: 'Hello, how can I help?', additional_instructions: 'You sell ACME anvils.', max_turns: 3, ...data }),
    ['done', 'transfer', 'error'],
  );

export const detection = planAround(
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

export function recordingPlan(data: Record<string, unknown>) {
  return {
    name: 'Recorded',
    settings,
    nodes: [planNode('start', 'start'), planNode('rec', 'recording', { format: 'mp3', ...data }), planNode('bye', 'hangup')],
    edges: [planEdge('start', 'next', 'rec'), planEdge('rec', 'next', 'bye')],
  };
}

export const analyses = [
  { kind: 'sentiment', items: ['positive', 'negative'] },
  { kind: 'topics', items: ['billing', 'delivery'] },
  { kind: 'questions', items: ['Was the order late?'] },
  { kind: 'summary', max_length: 40 },
];

export async function start(tenantId: number, plan: ReturnType<typeof planAround>, channel: 'voice' | 'chat'): Promise<TurnOutcome> {
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
export const send = (sessionId: string, event: EngineEvent) => server.ctx.sessions.handleTurn(sessionId, `event-${++eventCount}`, event);
export const say = (sessionId: string, channel: 'voice' | 'chat', text: string) => send(sessionId, channel === 'voice' ? { type: 'speech', text } : { type: 'message', text });

/** What the plan said or wrote in a turn. */
export const textsOf = (outcome: TurnOutcome) => outcome.actions.flatMap((action) => (action.type === 'say' || action.type === 'reply' ? [action.text] : []));

/** Through the API, as an administrator does it: the server sees the change on the next call. */
export async function setSecondProvider(isOn: boolean) {
  const found = await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name: 'feature_second_ai_provider' } })}`, token: admin });
  const id = found.json<Array<{ id: number }>>()[0]!.id;
  const saved = await server.call({ method: 'PATCH', url: `/configurations/${id}`, token: admin, payload: { value: String(isOn) } });
  expect(saved.statusCode, saved.body).toBe(200);
}

/** Starts the server and the OpenAI stand-in for the file, and clears the stand-in before each test. */
export function useAiServer(): void {
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
}
