/**
 * The AI blocks through the channels (issue 18): a chatbot in the editor's simulator over its
 * WebSocket, and a Twilio call whose speech fills variables and whose recording, once Twilio's
 * callback says it is ready, is transcribed and analysed onto the call's report. The provider is
 * the local OpenAI-compatible server of fake-openai.ts.
 */
import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import twilio from 'twilio';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { completion, type FakeOpenAi, startFakeOpenAi, structured } from './fake-openai.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode } from './sessions-helpers.ts';
import { connectSimulator, describeFrames } from './simulator-client.ts';

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000018';
const TOKEN = 'twilio-auth-token-18';
const NUMBER = '+558130000018';
const CALLER = '+5581999990018';

let fake: FakeOpenAi;
let server: TestServer;
let baseUrl: string;
let member: TenantMember;

const settings = { session_timeout_min: 10, chat_text: '', sync_with_voice_text: false, webhook: '' };

async function createPlan(name: string, document: object, publish: boolean): Promise<number> {
  const created = await server.call({ method: 'POST', url: '/visual-plans', token: member.token, payload: { name } });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: number }>().id;
  const saved = await server.call({ method: 'PUT', url: `/visual-plans/${id}/document`, token: member.token, payload: { base_version: 1, ...document } });
  expect(saved.statusCode, saved.body).toBe(200);
  if (publish) {
    const published = await server.call({ method: 'POST', url: `/visual-plans/${id}/publish`, token: member.token, payload: { base_version: 2 } });
    expect(published.statusCode, published.body).toBe(200);
  }
  return id;
}

type Form = Record<string, string>;

/** A request to a hook as Twilio sends it, signed for PUBLIC_URL + path. */
function hook(path: string, form: Form) {
  const url = `/api/v1/hooks/twilio/${path}`;
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}${url}`, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

const callForm = (callSid: string, extra: Form = {}): Form => ({ AccountSid: ACCOUNT, CallSid: callSid, From: CALLER, To: NUMBER, Direction: 'inbound', CallStatus: 'in-progress', ...extra });
const hookPath = (url: string) => url.replaceAll('&amp;', '&').slice(`${PUBLIC_URL}/api/v1/hooks/twilio/`.length);

beforeAll(async () => {
  fake = await startFakeOpenAi();
  server = await startTestServer({ PUBLIC_URL, OPENAI_BASE_URL: `${fake.url}/v1`, TWILIO_API_URL: `${fake.url}/twilio-api`, AI_TIMEOUT_MS: '2000' });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'ai-channels');
  const integrations = await server.call({
    method: 'PATCH',
    url: `/tenants/${member.tenantId}/integrations`,
    token: admin,
    payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN, openai_key: 'sk-channels-key' },
  });
  expect(integrations.statusCode, integrations.body).toBe(200);
});

beforeEach(() => fake.reset());

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe('the simulator', () => {
  test('a chatbot conversation runs against the provider, turn by turn, until the model ends it', async () => {
    const planId = await createPlan(
      'Simulated bot',
      {
        settings,
        nodes: [
          planNode('start', 'start'),
          planNode('bot', 'chatbot', { initial_text: 'Hi! Ask me anything.', additional_instructions: 'Answer about opening hours.' }),
          planNode('bye', 'play_message', { chat_text: 'Have a good day.' }),
        ],
        edges: [planEdge('start', 'next', 'bot'), planEdge('bot', 'done', 'bye')],
      },
      false,
    );
    const client = await connectSimulator(baseUrl, planId, member.token);
    expect(describeFrames(await client.turn({ type: 'start', channel: 'chat' }))).toEqual([
      'started chat draft',
      'node start',
      'exit start next',
      'node bot',
      'reply Hi! Ask me anything.',
      'turn waiting',
    ]);
    fake.script('/v1/chat/completions', completion('We open at 9.'), completion(null, { toolCall: { name: 'end_conversation', arguments: { message: 'Bye!' } } }));
    expect(describeFrames(await client.turn({ type: 'message', id: 'm1', text: 'When do you open?' }))).toEqual(['reply We open at 9.', 'turn waiting']);
    const last = await client.turn({ type: 'message', id: 'm2', text: 'Thanks' });
    expect(describeFrames(last)).toEqual(expect.arrayContaining(['reply Bye!', 'exit bot done', 'node bye', 'reply Have a good day.', 'turn ended']));
    const system = (fake.seen('/v1/chat/completions')[0]!.json!.messages as Array<{ content: string }>)[0]!.content;
    expect(system).toContain('Answer about opening hours.');
    await client.close();
  });
});

describe('a Twilio call', () => {
  test("the caller's speech fills the variables; the recording is transcribed and analysed onto the report", async () => {
    const planId = await createPlan(
      'AI call',
      {
        settings,
        nodes: [
          planNode('start', 'start'),
          planNode('rec', 'recording', { format: 'wav', analyses: [{ kind: 'sentiment', items: ['calm', 'angry'] }, { kind: 'summary', max_length: 80 }] }),
          planNode('ask', 'speech_detection', { voice_text: 'What is your order number?', variables: [{ name: 'order', description: 'the order number' }], language: 'en-US' }),
          planNode('thanks', 'play_message', { voice_text: 'Order {{order}} found.' }),
          planNode('bye', 'hangup'),
        ],
        edges: [planEdge('start', 'next', 'rec'), planEdge('rec', 'next', 'ask'), planEdge('ask', 'success', 'thanks'), planEdge('thanks', 'next', 'bye')],
      },
      true,
    );
    const number = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: NUMBER, provider: 'twilio', voice_plan_id: planId } });
    expect(number.statusCode, number.body).toBe(201);

    const first = await hook('voice', callForm('CA-ai-1', { CallStatus: 'ringing' }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).toContain('<Start><Recording');
    expect(first.body).toMatch(/<Gather [^>]*input="speech"/);
    const gather = hookPath(/<Gather [^>]* action="([^"]+)"/.exec(first.body)![1]!);

    fake.script('/v1/chat/completions', structured({ order: '4521' }));
    const answered = await hook(gather, callForm('CA-ai-1', { SpeechResult: 'It is order four five two one', Confidence: '0.9' }));
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.body).toContain('<Say>Order 4521 found.</Say>');
    expect(answered.body).toContain('<Hangup/>');
    const [extract] = fake.seen('/v1/chat/completions');
    expect((extract!.json!.messages as Array<{ content: string }>)[1]!.content).toBe('It is order four five two one');

    expect((await hook('status', callForm('CA-ai-1', { CallStatus: 'completed', CallDuration: '20' }))).statusCode).toBe(204);
    fake.script('/twilio-api/Recordings/RE18', { body: Buffer.from('RIFF fake wav') });
    fake.script('/v1/audio/transcriptions', { body: { text: 'Hello, my order four five two one is late and I am upset.' } });
    fake.script('/v1/chat/completions', structured({ sentiment: 'angry', summary: 'Order 4521 is late.' }));
    const recordingCallback = hookPath(/recordingStatusCallback="([^"]+)"/.exec(first.body)![1]!);
    const ready = await hook(
      recordingCallback,
      callForm('CA-ai-1', { RecordingSid: 'RE18', RecordingUrl: `${fake.url}/twilio-api/Recordings/RE18`, RecordingStatus: 'completed', RecordingDuration: '20' }),
    );
    expect(ready.statusCode, ready.body).toBe(204);

    const reports = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: 'CA-ai-1' } })}`, token: member.token });
    const [report] = reports.json<CallReportRecord[]>();
    expect(report?.recording).toMatchObject({ status: 'analysed', duration_s: 20, results: { sentiment: 'angry', summary: 'Order 4521 is late.' }, error: null });
    expect(report?.variables).toMatchObject({ order: '4521' });
    expect(fake.seen('/twilio-api/Recordings/RE18')[0]!.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`);
  });
});
