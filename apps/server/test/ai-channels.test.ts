/**
 * The AI blocks through the channels (issue 18): a chatbot in the editor's simulator over its
 * WebSocket, a Twilio call whose speech fills variables and whose recording, once Twilio's
 * callback says it is ready, is transcribed and analysed onto the call's report, and a WhatsApp
 * voice note transcribed into the message the plan reads. The provider (and the Graph API) is the
 * local server of fake-openai.ts.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { completion, type FakeOpenAi, startFakeOpenAi, structured } from './fake-openai.ts';
import { createTenantMember, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge, planNode } from './sessions-helpers.ts';
import { signedTwilioCallback, type TwilioForm, twilioActionOf } from './twilio-callbacks.ts';
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

/** A request to a hook as Twilio sends it, signed for PUBLIC_URL + path. */
function hook(path: string, form: TwilioForm) {
  const { url, headers, body } = signedTwilioCallback(TOKEN, PUBLIC_URL, path, form);
  return server.app.inject({ method: 'POST', url, headers, payload: body });
}

const callForm = (callSid: string, extra: TwilioForm = {}): TwilioForm => ({ AccountSid: ACCOUNT, CallSid: callSid, From: CALLER, To: NUMBER, Direction: 'inbound', CallStatus: 'in-progress', ...extra });
const hookPath = (url: string) => url.replaceAll('&amp;', '&').slice(`${PUBLIC_URL}/api/v1/hooks/twilio/`.length);

beforeAll(async () => {
  fake = await startFakeOpenAi();
  server = await startTestServer({
    PUBLIC_URL,
    OPENAI_BASE_URL: `${fake.url}/v1`,
    TWILIO_API_URL: `${fake.url}/twilio-api`,
    WHATSAPP_GRAPH_URL: `${fake.url}/graph`,
    AI_TIMEOUT_MS: '2000',
  });
  // The recording comes from this machine's Twilio stand-in: its address is loopback, closed to requests for a tenant by default.
  await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
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
    const gather = twilioActionOf(first.body, 'Gather', PUBLIC_URL);

    fake.script('/v1/chat/completions', structured({ order: '4521' }));
    const answered = await hook(gather, callForm('CA-ai-1', { SpeechResult: 'It is order four five two one', Confidence: '0.9' }));
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.body).toContain('<Say language="en-US" voice="Polly.Joanna">Order 4521 found.</Say>');
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

describe('a WhatsApp voice note', () => {
  const APP_SECRET = 'meta-app-secret-18';
  const PHONE_ID = '106540352242918';
  const USER = '5581988887777';

  /** A delivery of Meta's webhook with one message, signed with the app secret over the raw body. */
  function deliver(numberId: number, message: Record<string, unknown>) {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: PHONE_ID }, messages: [{ from: USER, timestamp: String(Math.floor(Date.now() / 1000)), ...message }] } }] }],
    });
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
    return server.app.inject({ method: 'POST', url: `/api/v1/hooks/whatsapp/${numberId}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, payload: body });
  }
  const sentTexts = () => fake.seen(`/${PHONE_ID}/messages`).map((request) => (request.json!.text as { body: string } | undefined)?.body);
  const accepted = (id: string) => ({ body: { messaging_product: 'whatsapp', contacts: [{ input: USER, wa_id: USER }], messages: [{ id }] } });

  test('is transcribed with the tenant’s key and read by the plan as the message’s text', async () => {
    const planId = await createPlan(
      'WhatsApp speech',
      {
        settings,
        nodes: [
          planNode('start', 'start'),
          planNode('ask', 'speech_detection', { chat_text: 'Which city?', variables: [{ name: 'city', description: 'a city' }], language: 'pt-BR' }),
          planNode('ok', 'play_message', { chat_text: 'City: {{city}}' }),
        ],
        edges: [planEdge('start', 'next', 'ask'), planEdge('ask', 'success', 'ok')],
      },
      true,
    );
    const number = await server.call({
      method: 'POST',
      url: '/numbers',
      token: member.token,
      payload: { number: '+558140000018', provider: 'whatsapp', chat_plan_id: planId, whatsapp_phone_number_id: PHONE_ID, whatsapp_token: 'EAAG-token-18', whatsapp_app_secret: APP_SECRET },
    });
    expect(number.statusCode, number.body).toBe(201);
    const numberId = number.json<{ id: number }>().id;

    fake.script(`/${PHONE_ID}/messages`, accepted('wamid.out1'), accepted('wamid.out2'));
    expect((await deliver(numberId, { id: 'wamid.in1', type: 'text', text: { body: 'oi' } })).statusCode).toBe(200);
    expect(sentTexts()).toEqual(['Which city?']);

    fake.script(`/graph/v23.0/MEDIA18?phone_number_id=${PHONE_ID}`, { body: { messaging_product: 'whatsapp', url: `${fake.url}/lookaside/voice-18`, mime_type: 'audio/ogg; codecs=opus', id: 'MEDIA18' } });
    fake.script('/lookaside/voice-18', { body: Buffer.from('OggS fake voice note') });
    fake.script('/v1/audio/transcriptions', { body: { text: 'Eu moro em Recife.' } });
    fake.script('/v1/chat/completions', structured({ city: 'Recife' }));
    const voice = await deliver(numberId, { id: 'wamid.in2', type: 'audio', audio: { id: 'MEDIA18', mime_type: 'audio/ogg; codecs=opus', voice: true } });
    expect(voice.statusCode, voice.body).toBe(200);
    expect(sentTexts()).toEqual(['Which city?', 'City: Recife']);

    // The media is fetched with the number's token; the transcription gets an Ogg file.
    expect(fake.seen(`/graph/v23.0/MEDIA18?phone_number_id=${PHONE_ID}`)[0]!.authorization).toBe('Bearer EAAG-token-18');
    expect(fake.seen('/lookaside/voice-18')[0]!.authorization).toBe('Bearer EAAG-token-18');
    expect(fake.seen('/v1/audio/transcriptions')[0]!.raw.toString()).toContain('filename="audio.ogg"');
    const extract = fake.seen('/v1/chat/completions')[0]!;
    expect((extract.json!.messages as Array<{ content: string }>)[1]!.content).toBe('Eu moro em Recife.');
  });
});
