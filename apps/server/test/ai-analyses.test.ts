/**
 * The AI around plans (issue 18) through the real server and a local server playing OpenAI's API:
 * the recording's analyses (transcription, anonymisation, sampling, minimum duration), the cost
 * guard, and AI voices for generated audios. The AI blocks are in ai.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { createAiPort } from '../src/modules/ai/ai-port.ts';
import { apiError, completion, silentWav, structured } from './fake-openai.ts';
import { errorOf, metricOf, type TestServer } from './harness.ts';
import type { planAround } from './ai-fixtures.ts';
import { admin, analyses, fake, keyless, member, OPENAI_KEY, recordingPlan, send, server, start, useAiServer } from './ai-fixtures.ts';

useAiServer();

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
