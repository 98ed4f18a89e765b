/**
 * Web chat numbers by name, and who a web chat's visitor is (issue 36; docs/channels-webchat.md):
 * a web chat is named, not numbered, its name unique in its tenant; the pre-chat fields the number
 * asks; the page's address; the site's signed-in user, trusted only with the site's HMAC of their
 * id under the number's identity key; and the customer shown on the conversation and the report.
 */
import { createHmac } from 'node:crypto';
import type { CallReportRecord, ConversationRow, Destination, PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { until } from './asterisk-pbx.ts';
import { createTenantMember, createTenantUser, errorOf, expectInvalid, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { handOffPlan, storePlan } from './sessions-helpers.ts';

const SITE = 'https://shop.example.com';

let server: TestServer;
let admin: string;
let member: TenantMember;
let guest: TenantMember;
let stranger: TenantMember;
let plan: number;
let number: PhoneNumber;
let nextAddress = 0;

const api = (token: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => server.call({ method, url, token, ...(payload && { payload }) });

function widget(method: 'GET' | 'POST', url: string, payload?: object, key = number.webchat_key) {
  return server.app.inject({
    method,
    url: `/api/v1/webchat/${key}${url}`,
    remoteAddress: `198.51.100.${(nextAddress++ % 250) + 1}`,
    headers: { origin: SITE },
    ...(payload && { payload }),
  });
}

const customerOf = async (sessionId: string) => {
  const row = await server.ctx.db.selectFrom('sessions').select('customer').where('id', '=', sessionId).executeTakeFirstOrThrow();
  return row.customer === null ? null : (JSON.parse(row.customer) as unknown);
};

/** What a site computes on its own server for its signed-in user (docs/channels-webchat.md). */
const sign = (secret: string, id: string) => createHmac('sha256', secret).update(id).digest('hex');

beforeAll(async () => {
  server = await startTestServer({ WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000' });
  admin = await server.login();
  member = await createTenantMember(server, admin, 'visitors');
  guest = await createTenantUser(server, admin, member.tenantId, 'visitors-guest', 'guest');
  stranger = await createTenantMember(server, admin, 'visitors-other');
  // Nobody online in the queue: the hand-off closes at once as busy, and the conversation is listed with its customer.
  const queue = (await api(member.token, 'POST', '/destinations', { name: 'Support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] })).json<Destination>();
  plan = await storePlan(server.ctx, member.tenantId, { name: 'Front desk', ...handOffPlan(queue.id, { timeoutS: 120, onAnswer: 'Back to the bot.' }) });
  const created = await api(member.token, 'POST', '/numbers', { number: 'Shop chat', provider: 'webchat', chat_plan_id: plan, webchat_origins: [SITE] });
  expect(created.statusCode, created.body).toBe(201);
  number = created.json<PhoneNumber>();
});

afterAll(() => server?.close());

describe('a web chat number has a name', () => {
  test('named, not numbered: checked for its provider, unique in its tenant only', async () => {
    expect(number).toMatchObject({ number: 'Shop chat', provider: 'webchat', webchat_prechat: [], webchat_identity_secret: '' });
    expect(number.webchat_script).toContain(number.webchat_key);
    // A phone number's provider still wants E.164, and a name may hold no control characters.
    expectInvalid(await api(member.token, 'POST', '/numbers', { number: 'Shop chat', provider: 'twilio' }), 'number', 'invalidE164');
    expectInvalid(await api(member.token, 'POST', '/numbers', { number: 'Shop\u0007chat', provider: 'webchat' }), 'number', 'invalidWebchatName');
    expectInvalid(await api(member.token, 'POST', '/numbers', { number: '', provider: 'webchat' }), 'number', 'invalidWebchatName');
    // An edit naming one of the two is checked against the stored other.
    expectInvalid(await api(member.token, 'PATCH', `/numbers/${number.id}`, { provider: 'twilio' }), 'number', 'invalidE164');

    const twice = await api(member.token, 'POST', '/numbers', { number: 'Shop chat', provider: 'webchat', webchat_origins: [SITE] });
    expect(twice.statusCode).toBe(409);
    expect(errorOf(twice)).toMatchObject({ code: 'webchat_name_already_exists', details: [{ path: 'number', message: 'already exists' }] });
    // Another tenant's web chat may have the same name: nothing tells one tenant of the other's.
    const elsewhere = await api(stranger.token, 'POST', '/numbers', { number: 'Shop chat', provider: 'webchat', webchat_origins: [SITE] });
    expect(elsewhere.statusCode, elsewhere.body).toBe(201);
    // A phone number is still the system's.
    expect((await api(member.token, 'POST', '/numbers', { number: '+551140009001', provider: 'twilio' })).statusCode).toBe(201);
    expect(errorOf(await api(stranger.token, 'POST', '/numbers', { number: '+551140009001', provider: 'twilio' })).code).toBe('number_already_exists');
  });
});

describe('who the visitor is', () => {
  test('no pre-chat fields by default; the page’s address is kept, of the request’s origin only', async () => {
    expect((await widget('GET', '/settings')).json()).toEqual({ prechat: [] });
    const started = await widget('POST', '/conversations', { page_url: `${SITE}/products/42?ref=mail` });
    expect(started.statusCode, started.body).toBe(200);
    expect(await customerOf(started.json<WebchatConversation>().conversation_id)).toEqual({ name: null, email: null, page_url: `${SITE}/products/42?ref=mail`, external_id: null, verified: false });
    expectInvalid(await widget('POST', '/conversations', { page_url: 'https://evil.example.net/' }), 'page_url');
    // Nothing said of the visitor: nothing kept.
    const bare = await widget('POST', '/conversations', {});
    expect(await customerOf(bare.json<WebchatConversation>().conversation_id)).toBeNull();
  });

  test('the pre-chat fields the number asks are required, and the conversation shows them', async () => {
    const asked = await api(member.token, 'PATCH', `/numbers/${number.id}`, { webchat_prechat: ['name', 'email'] });
    expect(asked.json<PhoneNumber>().webchat_prechat).toEqual(['name', 'email']);
    expect((await widget('GET', '/settings')).json()).toEqual({ prechat: ['name', 'email'] });

    const missing = await widget('POST', '/conversations', { customer: { name: 'Ana' } });
    expectInvalid(missing, 'customer.email', 'required');
    expectInvalid(await widget('POST', '/conversations', { customer: { name: 'Ana', email: 'not-an-address' } }), 'customer.email');
    const before = await server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();

    const started = await widget('POST', '/conversations', { customer: { name: ' Ana Souza ', email: 'ana@example.com' }, page_url: `${SITE}/help` });
    expect(started.statusCode, started.body).toBe(200);
    const sessionId = started.json<WebchatConversation>().conversation_id;
    expect(Number((await server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(Number(before.n) + 1);
    const customer = { name: 'Ana Souza', email: 'ana@example.com', page_url: `${SITE}/help`, external_id: null, verified: false };

    // The plan handed the chat to a queue with nobody online: the conversation (closed busy) names her.
    const rows = await until('the conversation', async () => {
      const list = (await api(member.token, 'GET', '/conversations?status=closed')).json<ConversationRow[]>();
      return list.some((row) => row.session_id === sessionId) ? list : undefined;
    });
    expect(rows.find((row) => row.session_id === sessionId)!.customer).toEqual(customer);
    // The search finds her chat by her name or e-mail, whatever their case, and not by the JSON's keys.
    const found = async (q: string) =>
      (await api(member.token, 'GET', `/conversations?status=closed&q=${encodeURIComponent(q)}`)).json<ConversationRow[]>().map((row) => row.session_id);
    expect(await found('ana souza')).toEqual([sessionId]);
    expect(await found('SOUZA')).toEqual([sessionId]);
    expect(await found('ana@example')).toEqual([sessionId]);
    expect(await found('page_url')).toEqual([]);
    expect(await found('Nobody Else')).toEqual([]);
    const report = await until('the report', async () => {
      const list = (await api(member.token, 'GET', '/reports')).json<CallReportRecord[]>();
      return list.find((row) => row.session_id === sessionId);
    });
    expect(report.customer).toEqual(customer);
    await api(member.token, 'PATCH', `/numbers/${number.id}`, { webchat_prechat: [] });
  });

  test('the site’s signed-in user: trusted only with the site’s HMAC of their id under the number’s key, made once', async () => {
    const identity = { id: 'user-1842', name: 'Bruno Lima', email: 'bruno@example.com' };
    // No key yet: any identity is refused.
    const noKey = await widget('POST', '/conversations', { identity: { ...identity, hash: sign('guess', identity.id) } });
    expect(noKey.statusCode).toBe(403);
    expect(errorOf(noKey).code).toBe('webchat_identity_refused');

    // Guests read and never write; another tenant does not find the number.
    expect(errorOf(await api(guest.token, 'POST', `/numbers/${number.id}/webchat-identity-secret`)).code).toBe('readonly_only');
    expect((await api(stranger.token, 'POST', `/numbers/${number.id}/webchat-identity-secret`)).statusCode).toBe(404);
    const made = await api(member.token, 'POST', `/numbers/${number.id}/webchat-identity-secret`);
    expect(made.statusCode, made.body).toBe(200);
    const secret = made.json<{ webchat_identity_secret: string }>().webchat_identity_secret;
    expect(secret).toMatch(/^wcid_[\w-]{40,}$/);
    // Shown once: the number shows it masked after, and stores it encrypted.
    const shown = (await api(member.token, 'GET', `/numbers/${number.id}`)).json<PhoneNumber>();
    expect(shown.webchat_identity_secret).toMatch(/^•+/);
    expect(shown.webchat_identity_secret.endsWith(secret.slice(-4))).toBe(true);
    const stored = await server.ctx.db.selectFrom('numbers').select('webchat_identity_secret').where('id', '=', number.id).executeTakeFirstOrThrow();
    expect(stored.webchat_identity_secret).not.toContain(secret);
    const audit = await server.ctx.db.selectFrom('audit_log').select(['after']).where('entity', '=', 'number').where('entity_id', '=', String(number.id)).orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(audit.after).not.toContain(secret);

    // A wrong signature (another id's, another key's) is refused, and starts nothing.
    const count = async () => Number((await server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    for (const hash of [sign(secret, 'user-1'), sign('another-key', identity.id)]) {
      const refused = await widget('POST', '/conversations', { identity: { ...identity, hash } });
      expect(refused.statusCode).toBe(403);
      expect(errorOf(refused).code).toBe('webchat_identity_refused');
    }
    expectInvalid(await widget('POST', '/conversations', { identity: { ...identity, hash: 'abc' } }), 'identity.hash');
    expect(await count()).toBe(before);

    const started = await widget('POST', '/conversations', { identity: { ...identity, hash: sign(secret, identity.id).toUpperCase() } });
    expect(started.statusCode, started.body).toBe(200);
    expect(await customerOf(started.json<WebchatConversation>().conversation_id)).toEqual({ name: 'Bruno Lima', email: 'bruno@example.com', page_url: null, external_id: 'user-1842', verified: true });

    // A new key replaces the old at once.
    const next = (await api(member.token, 'POST', `/numbers/${number.id}/webchat-identity-secret`)).json<{ webchat_identity_secret: string }>().webchat_identity_secret;
    expect(next).not.toBe(secret);
    expect((await widget('POST', '/conversations', { identity: { ...identity, hash: sign(secret, identity.id) } })).statusCode).toBe(403);
    expect((await widget('POST', '/conversations', { identity: { ...identity, hash: sign(next, identity.id) } })).statusCode).toBe(200);
  });
});
