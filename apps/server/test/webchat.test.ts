/**
 * The web chat widget's API (docs/channels-webchat.md) as a page of another site calls it: the
 * number's key and origins, CORS (a refused origin runs nothing and can read nothing), a whole menu,
 * a retried message, a resumed conversation, the long poll woken by the idle timeout, the rate
 * limits per address and per key, and the widget's script.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { takeDatabaseAway } from './database-away.ts';
import { createTenantMember, errorOf, expectInvalid, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { readFixture, storePlan } from './sessions-helpers.ts';

const SITE = 'https://shop.example.com';
const OTHER_SITE = 'https://evil.example.net';
const RATE_PER_ADDRESS = 20;
const RATE_PER_KEY = 40;

let server: TestServer;
let member: TenantMember;
let widgetDir: string;
/** The number the conversations run on, one kept for the rate limit alone, and a third. */
let chat: PhoneNumber;
let limited: PhoneNumber;
let other: PhoneNumber;
/** Requests come from addresses in turn, so that only the rate limit's test meets the limit per address. */
let nextAddress = 0;

async function createNumber(payload: Record<string, unknown>): Promise<PhoneNumber> {
  const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<PhoneNumber>();
}

/** A request of the widget: from a page of `origin` (null: no Origin header) at `address`. */
function widget(
  method: 'GET' | 'POST' | 'OPTIONS',
  url: string,
  options: { key?: string; origin?: string | null; address?: string; payload?: object; headers?: Record<string, string> } = {},
) {
  const origin = options.origin === undefined ? SITE : options.origin;
  const request: InjectOptions = {
    method,
    url: `/api/v1/webchat/${options.key ?? chat.webchat_key}${url}`,
    remoteAddress: options.address ?? `203.0.113.${(nextAddress++ % 250) + 1}`,
    headers: { ...(origin !== null && { origin }), ...options.headers },
    ...(options.payload && { payload: options.payload }),
  };
  return server.app.inject(request);
}

const countSessions = async () => Number((await server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

async function startConversation(address?: string): Promise<WebchatConversation> {
  const response = await widget('POST', '/conversations', { ...(address && { address }) });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['access-control-allow-origin']).toBe(SITE);
  return response.json<WebchatConversation>();
}

const say = (conversation: string, id: string, text: string, address?: string) =>
  widget('POST', `/conversations/${conversation}/messages`, { payload: { id, text }, ...(address && { address }) });

beforeAll(async () => {
  widgetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-widget-'));
  fs.writeFileSync(path.join(widgetDir, 'widget.js'), 'window.voxplanWidget = true;\n');
  // The rate limits' test opens more conversations from one address than the cap of waiting chats
  // allows; that cap has its own test (webchat-licence.test.ts).
  server = await startTestServer({
    WEBCHAT_DIR: widgetDir,
    WEBCHAT_RATE_PER_ADDRESS: String(RATE_PER_ADDRESS),
    WEBCHAT_RATE_PER_KEY: String(RATE_PER_KEY),
    WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000',
  });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'webchat');
  const plan = await storePlan(server.ctx, member.tenantId, readFixture('help-desk-chat'));
  chat = await createNumber({ number: '+551140000001', provider: 'webchat', chat_plan_id: plan, webchat_origins: [' HTTPS://Shop.Example.com:443 ', 'http://localhost:3000', 'http://intranet.example.com:80'] });
  limited = await createNumber({ number: '+551140000002', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  other = await createNumber({ number: '+551140000004', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(widgetDir, { recursive: true, force: true });
});

describe('a web chat number', () => {
  test('gets a public key, its origins as browsers send them, and the <script> tag to copy', async () => {
    expect(chat.webchat_key).toMatch(/^wc_[\w-]{32}$/);
    expect(limited.webchat_key).not.toBe(chat.webchat_key);
    expect(chat.webchat_origins).toEqual([SITE, 'http://localhost:3000', 'http://intranet.example.com']);
    expect(chat.webchat_script).toBe(`<script src="${server.config.publicUrl}/widget.js" data-key="${chat.webchat_key}" async></script>`);
    // Saved again, the key stays: pages that embed it keep working.
    const edited = await server.call({ method: 'PATCH', url: `/numbers/${chat.id}`, token: member.token, payload: { description: 'Shop chat' } });
    expect(edited.json<PhoneNumber>().webchat_key).toBe(chat.webchat_key);
  });

  test('refuses an origin with a path, or that is not http(s)', async () => {
    const response = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: '+551140000009', provider: 'webchat', webchat_origins: [SITE, 'https://shop.example.com/'] } });
    expectInvalid(response, 'webchat_origins.1', 'invalidOrigin');
    expectInvalid(
      await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: '+551140000009', provider: 'webchat', webchat_origins: ['ftp://shop.example.com'] } }),
      'webchat_origins.0',
      'invalidOrigin',
    );
  });

  test('a number of another provider has no key and no tag', async () => {
    const voice = await createNumber({ number: '+551140000003', provider: 'twilio' });
    expect(voice).toMatchObject({ webchat_key: '', webchat_origins: [], webchat_script: null });
  });
});

describe('CORS: only the number’s origins', () => {
  test('the preflight of an allowed origin names it; a refused one passes only to read its refusal', async () => {
    const preflight = { headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } };
    const allowed = await widget('OPTIONS', '/conversations', preflight);
    expect(allowed.statusCode, allowed.body).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(SITE);
    expect(allowed.headers['access-control-allow-methods']).toContain('POST');
    expect(allowed.headers['access-control-allow-headers']).toContain('content-type');

    // The page of a refused origin must be able to read the refusal of its request (the widget then
    // says the chat is not available there): its preflight passes, and the request is refused.
    const refused = await widget('OPTIONS', '/conversations', { ...preflight, origin: OTHER_SITE });
    expect(refused.statusCode).toBe(204);
    expect(refused.headers['access-control-allow-origin']).toBe(OTHER_SITE);
    const noOrigin = await widget('OPTIONS', '/conversations', { ...preflight, origin: null });
    expect(noOrigin.statusCode).toBe(403);
    expect(noOrigin.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('a start from a refused origin, or with no origin, runs nothing', async () => {
    const before = await countSessions();
    for (const origin of [OTHER_SITE, 'https://shop.example.com.evil.net', null]) {
      const response = await widget('POST', '/conversations', { origin });
      expect(response.statusCode, response.body).toBe(403);
      expect(errorOf(response).code).toBe('webchat_origin_refused');
      // Readable by that page alone, so that its widget can say so; nothing more.
      expect(response.headers['access-control-allow-origin']).toBe(origin ?? undefined);
    }
    // Another number's allowed origin is not this one's.
    expect((await widget('POST', '/conversations', { key: limited.webchat_key, origin: 'http://localhost:3000' })).statusCode).toBe(403);
    expect(await countSessions()).toBe(before);
  });

  test('a message from a refused origin into a live conversation is not taken', async () => {
    const conversation = await startConversation();
    const response = await widget('POST', `/conversations/${conversation.conversation_id}/messages`, { origin: OTHER_SITE, payload: { id: 'm1', text: 'Sales' } });
    expect(response.statusCode).toBe(403);
    const after = (await widget('GET', `/conversations/${conversation.conversation_id}`)).json<WebchatConversation>();
    expect(after.revision).toBe(conversation.revision);
    expect(after.messages).toEqual(conversation.messages);
  });

  test('an unknown key is not found', async () => {
    const response = await widget('POST', '/conversations', { key: 'wc_nobody' });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('webchat_key_not_found');
  });
});

describe('a conversation', () => {
  test('a whole menu: the buttons, a choice by its label, a retried message run once, the end', async () => {
    const started = await startConversation();
    expect(started.status).toBe('waiting');
    expect(started.messages.map((message) => [message.from, message.text])).toEqual([['plan', 'How can we help?']]);
    expect(started.options).toEqual([
      { id: '1', label: 'Sales' },
      { id: '2', label: 'Support' },
    ]);

    const chosen = await say(started.conversation_id, 'msg-1', 'Support');
    expect(chosen.statusCode, chosen.body).toBe(200);
    const ended = chosen.json<WebchatConversation>();
    expect(ended.messages.map((message) => [message.from, message.text])).toEqual([
      ['plan', 'How can we help?'],
      ['user', 'Support'],
      ['plan', 'Support is on its way.'],
      ['plan', 'Thanks for writing.'],
    ]);
    expect(ended).toMatchObject({ status: 'ended', options: [] });

    // The widget retried (a lost answer): the same message id changes nothing.
    const retried = await say(started.conversation_id, 'msg-1', 'Support');
    expect(retried.json<WebchatConversation>()).toEqual(ended);
    const report = await server.ctx.db.selectFrom('call_reports').select(['provider', 'channel', 'called']).where('session_id', '=', started.conversation_id).executeTakeFirstOrThrow();
    expect(report).toEqual({ provider: 'webchat', channel: 'chat', called: chat.number });
  });

  test('resumes after a reload: the transcript and the buttons it waits on', async () => {
    const started = await startConversation();
    const wrong = await say(started.conversation_id, 'msg-1', 'Pizza');
    expect(wrong.json<WebchatConversation>().messages.at(-1)).toMatchObject({ from: 'plan', text: 'How can we help?' });

    const reloaded = await widget('GET', `/conversations/${started.conversation_id}`);
    expect(reloaded.statusCode, reloaded.body).toBe(200);
    expect(reloaded.json<WebchatConversation>()).toEqual(wrong.json<WebchatConversation>());
    expect(reloaded.json<WebchatConversation>().options.map((option) => option.label)).toEqual(['Sales', 'Support']);

    // A choice by its digits works too; the next menu's buttons replace the first's.
    const sales = (await say(started.conversation_id, 'msg-2', '1')).json<WebchatConversation>();
    expect(sales.messages.at(-1)).toMatchObject({ from: 'plan', text: 'Are you already a customer?' });
    expect(sales.options.map((option) => option.label)).toEqual(['Yes', 'Not yet']);
  });

  test('a long poll answers when the plan speaks on its own (the idle timeout)', async () => {
    const started = await startConversation();
    const poll = widget('GET', `/conversations/${started.conversation_id}?after=${started.revision}&wait=20`);
    // Still waiting: nothing happened to the conversation.
    const early = await Promise.race([poll.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
    expect(early).toBe('waiting');
    await server.ctx.db.updateTable('sessions').set({ timeout_time: '2000-01-01T00:00:00.000Z' }).where('id', '=', started.conversation_id).execute();
    expect(await server.ctx.sessions.sweepTimeouts()).toContain(started.conversation_id);
    const answered = (await poll).json<WebchatConversation>();
    expect(answered.status).toBe('ended');
    expect(answered.messages.at(-1)).toMatchObject({ from: 'plan', text: 'Closing this idle chat.' });
  });

  test('another number’s conversation is not found through this key', async () => {
    const started = await startConversation();
    const response = await widget('GET', `/conversations/${started.conversation_id}`, { key: other.webchat_key });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response).code).toBe('session_not_found');
  });

  test('a message that is empty or too long is refused', async () => {
    const started = await startConversation();
    expectInvalid(await say(started.conversation_id, 'msg-1', '   '), 'text');
    expectInvalid(await say(started.conversation_id, 'msg-2', 'x'.repeat(2001)), 'text');
  });
});

describe('while the database is away (docs/channels-webchat.md)', () => {
  test('the page can read 503 database_unavailable and its Retry-After, its preflight passes, nothing starts; the message sent again once it is back runs once', async () => {
    const started = await startConversation();
    const sessions = await countSessions();
    const bringBack = takeDatabaseAway(server.ctx.dialect);
    let preflight, start, message;
    try {
      preflight = await widget('OPTIONS', '/conversations', { headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      start = await widget('POST', '/conversations', { headers: { 'accept-language': 'pt-BR' } });
      message = await say(started.conversation_id, 'msg-away', 'Support');
    } finally {
      bringBack();
    }
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(SITE);
    for (const refused of [start, message]) {
      expect(refused.statusCode, refused.body).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
      // Without these a browser hides the answer, or its Retry-After, from the widget.
      expect(refused.headers['access-control-allow-origin']).toBe(SITE);
      expect(refused.headers['access-control-expose-headers']).toBe('Retry-After');
    }
    expect(errorOf(start)).toMatchObject({ code: 'database_unavailable', message: 'O serviço está indisponível por um momento; tente novamente em alguns segundos.' });
    expect(errorOf(message).code).toBe('database_unavailable');
    expect(await countSessions()).toBe(sessions);

    // The widget sends the same message (its id kept) after the Retry-After: it runs now, and a second retry changes nothing.
    const retried = await say(started.conversation_id, 'msg-away', 'Support');
    expect(retried.statusCode, retried.body).toBe(200);
    const answered = retried.json<WebchatConversation>();
    expect(answered.messages.map((entry) => [entry.from, entry.text])).toEqual([
      ['plan', 'How can we help?'],
      ['user', 'Support'],
      ['plan', 'Support is on its way.'],
      ['plan', 'Thanks for writing.'],
    ]);
    expect((await say(started.conversation_id, 'msg-away', 'Support')).json<WebchatConversation>()).toEqual(answered);
  });
});

describe('rate limits', () => {
  test('per address, then per key: 429 with a readable code and Retry-After', async () => {
    const key = limited.webchat_key;
    const at = (address: string) => widget('POST', '/conversations', { key, address });
    for (let i = 0; i < RATE_PER_ADDRESS; i++) expect((await at('198.51.100.1')).statusCode).toBe(200);
    const tooMany = await at('198.51.100.1');
    expect(tooMany.statusCode).toBe(429);
    expect(errorOf(tooMany).code).toBe('webchat_rate_limited');
    expect(Number(tooMany.headers['retry-after'])).toBeGreaterThan(0);
    // The page can read why: its origin is allowed.
    expect(tooMany.headers['access-control-allow-origin']).toBe(SITE);
    const sessionsBefore = await countSessions();

    // Other addresses still get in, until the key's own limit is spent.
    let accepted = 0;
    for (let i = 2; i < 2 + RATE_PER_KEY; i++) if ((await at(`198.51.100.${i}`)).statusCode === 200) accepted++;
    expect(accepted).toBe(RATE_PER_KEY - RATE_PER_ADDRESS);
    expect(await countSessions()).toBe(sessionsBefore + accepted);
    // Another number's key is not held back by this one.
    expect((await widget('GET', '/conversations/none', { key: other.webchat_key, address: '198.51.100.99' })).statusCode).toBe(404);
  });
});

describe('the widget’s script', () => {
  test('is served for other sites’ pages', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/widget.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.body).toContain('voxplanWidget');
  });
});
