/**
 * The AI blocks of plans (issue 18) through the real server's session runtime and a local server
 * playing OpenAI's API: every exit of chatbot and speech detection on voice and chat, the provider's
 * errors (401, 429, 500, a timeout), and the setting that hides and refuses the second provider.
 * The recording's analyses, the cost guard and AI voices are in ai-analyses.test.ts.
 */
import { afterAll, describe, expect, test } from 'vitest';
import {  } from '../src/modules/ai/ai-port.ts';
import { apiError, completion, structured } from './fake-openai.ts';
import { errorOf } from './harness.ts';
import { admin, chatbot, detection, fake, keyless, member, OPENAI_KEY, say, server, setSecondProvider, SIPPULSE_KEY, start, textsOf, TIMEOUT_MS, TOKENS_PER_TURN, useAiServer } from './ai-fixtures.ts';

useAiServer();

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
