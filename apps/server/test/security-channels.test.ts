/**
 * The public channels attacked from outside (issue 26), each try as the attacker sends it: a
 * tenant that signs its own Twilio callbacks (its auth token is its own) and so chooses every field
 * of them, a web chat visitor. Twilio is played by requests signed with the official library
 * (test/twilio-callbacks.ts), as Twilio posts them: forms,
 * https://www.twilio.com/docs/usage/webhooks/voice-webhooks; its recording host and OpenAI are the
 * local server of fake-openai.ts. The FastAGI port is attacked over TCP by peers that are not Asterisk.
 */
import { once } from 'node:events';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { CallReportRecord, PhoneNumber } from '@voxplan/contracts';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AgiConnection, MAX_QUEUED_LINES } from '../src/channels/asterisk/agi-connection.ts';
import { type AgiServer, startAgiServer } from '../src/channels/asterisk/agi-server.ts';
import { type FakeOpenAi, startFakeOpenAi } from './fake-openai.ts';
import { createTenantMember, errorOf, expectInvalid, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type FixtureDocument, planEdge, planNode, readFixture, storePlan } from './sessions-helpers.ts';
import { signedTwilioCallback, type TwilioForm, twilioActionOf, twilioCallForm } from './twilio-callbacks.ts';

const PUBLIC_URL = 'https://voice.example.com';
const CALLER = '+5581999990026';
const SITE = 'https://shop.example.com';

interface TwilioTenant {
  member: TenantMember;
  account: string;
  token: string;
  number: string;
}

let fake: FakeOpenAi;
/** A service inside the network (a cloud's metadata address, an admin port): it must never be asked anything. */
let internal: http.Server;
let internalUrl: string;
const internalHits: string[] = [];
let server: TestServer;
let one: TwilioTenant;
let two: TwilioTenant;

const settings = { session_timeout_min: 10, chat_text: '', sync_with_voice_text: false, webhook: '' };

async function twilioTenant(admin: string, name: string, account: string, token: string, number: string, document: Pick<FixtureDocument, 'nodes'> & { edges: object[] }): Promise<TwilioTenant> {
  const member = await createTenantMember(server, admin, name);
  const saved = await server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { twilio_sid: account, twilio_token: token, openai_key: `sk-${name}` } });
  expect(saved.statusCode, saved.body).toBe(200);
  const planId = await storePlan(server.ctx, member.tenantId, { name, settings, ...document });
  const created = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number, provider: 'twilio', voice_plan_id: planId } });
  expect(created.statusCode, created.body).toBe(201);
  return { member, account, token, number };
}

/** A request to a Twilio hook signed with `tenant`'s auth token, as Twilio sends it. */
function hook(tenant: TwilioTenant, path: string, form: TwilioForm) {
  const { url, headers, body } = signedTwilioCallback(tenant.token, PUBLIC_URL, path, form);
  return server.app.inject({ method: 'POST', url, headers, payload: body });
}

const callOf = (tenant: TwilioTenant, callSid: string, extra: TwilioForm = {}) => twilioCallForm({ account: tenant.account, callSid, from: CALLER, to: tenant.number }, extra);

async function reportOf(tenant: TwilioTenant, sessionId: string): Promise<CallReportRecord | undefined> {
  const reports = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId } })}`, token: tenant.member.token });
  return reports.json<CallReportRecord[]>()[0];
}

const sessionsNamed = async (id: string) => server.ctx.db.selectFrom('sessions').select(['tenant_id']).where('id', '=', id).execute();

beforeAll(async () => {
  fake = await startFakeOpenAi();
  internal = http.createServer((request, response) => {
    internalHits.push(request.url ?? '');
    response.end('secret');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
  server = await startTestServer({ PUBLIC_URL, OPENAI_BASE_URL: `${fake.url}/v1`, TWILIO_API_URL: `${fake.url}/twilio-api`, WHATSAPP_GRAPH_URL: `${fake.url}/graph`, AI_TIMEOUT_MS: '2000' });
  // Loopback open, as for a test server in place of Twilio: what keeps the internal service out is then the recording's host check alone.
  await server.ctx.db.updateTable('configurations').set({ value: 'true' }).where('name', '=', 'outbound_allow_loopback').execute();
  const admin = await server.login();
  one = await twilioTenant(admin, 'security-one', 'AC00000000000000000000000000000261', 'twilio-token-261', '+558130000261', {
    nodes: [
      planNode('start', 'start'),
      planNode('rec', 'recording', { format: 'wav', analyses: [{ kind: 'summary', max_length: 80 }] }),
      planNode('menu', 'voice_menu', { voice_text: 'Tenant one secret menu: press 1.', options: [{ digits: '1', label: 'One' }] }),
      planNode('bye', 'play_message', { voice_text: 'Tenant one goodbye.' }),
    ],
    edges: [planEdge('start', 'next', 'rec'), planEdge('rec', 'next', 'menu'), planEdge('menu', '1', 'bye')],
  });
  two = await twilioTenant(admin, 'security-two', 'AC00000000000000000000000000000262', 'twilio-token-262', '+558130000262', {
    nodes: [planNode('start', 'start'), planNode('hello', 'play_message', { voice_text: 'Tenant two hello.' })],
    edges: [planEdge('start', 'next', 'hello')],
  });
});

afterAll(async () => {
  await server?.close();
  await fake?.close();
  await new Promise((resolve) => internal?.close(resolve));
});

describe("a call id of another tenant (issue 26, 5)", () => {
  test("tenant two's signed webhook carrying tenant one's CallSid does not get tenant one's call, which goes on", async () => {
    const first = await hook(one, 'voice', callOf(one, 'CA-security-1', { CallStatus: 'ringing' }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).toContain('Tenant one secret menu');

    // Signed by tenant two, for its own number and account, with tenant one's running call's id.
    const stolen = await hook(two, 'voice', twilioCallForm({ account: two.account, callSid: 'CA-security-1', from: CALLER, to: two.number }, { CallStatus: 'ringing' }));
    expect(stolen.statusCode, stolen.body).toBe(200);
    expect(stolen.body).not.toContain('Tenant one');
    expect(stolen.body).not.toContain('/media/');
    expect(stolen.body).toContain('not in service');
    expect(await sessionsNamed('CA-security-1')).toEqual([{ tenant_id: one.member.tenantId }]);

    // Tenant one's call is untouched: its menu takes the caller's key.
    const pressed = await hook(one, twilioActionOf(first.body, 'Gather', PUBLIC_URL), callOf(one, 'CA-security-1', { Digits: '1' }));
    expect(pressed.statusCode, pressed.body).toBe(200);
    expect(pressed.body).toContain('Tenant one goodbye.');
  });

  test("tenant two's status callback with tenant one's CallSid cannot end tenant one's call", async () => {
    const first = await hook(one, 'voice', callOf(one, 'CA-security-2', { CallStatus: 'ringing' }));
    expect(first.statusCode, first.body).toBe(200);
    const ended = await hook(two, 'status', twilioCallForm({ account: two.account, callSid: 'CA-security-2', from: CALLER, to: two.number }, { CallStatus: 'completed' }));
    expect(ended.statusCode).toBe(403);
    expect(errorOf(ended).code).toBe('invalid_twilio_signature');
    const [session] = await server.ctx.db.selectFrom('sessions').select('status').where('id', '=', 'CA-security-2').execute();
    expect(session?.status).toBe('waiting');
  });

  test("a webhook signed with the tenant's token but naming another account is refused, and no call starts", async () => {
    const form = twilioCallForm({ account: one.account, callSid: 'CA-security-3', from: CALLER, to: two.number }, { CallStatus: 'ringing' });
    const refused = await hook(two, 'voice', form);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(errorOf(refused).code).toBe('twilio_account_mismatch');
    expect(await sessionsNamed('CA-security-3')).toEqual([]);
  });
});

describe('a WhatsApp message id of another tenant (issue 26, 5)', () => {
  const USER = '5581988880026';

  /** A WhatsApp number of `tenant` whose chat plan greets with `greeting`. */
  async function whatsappNumber(tenant: TenantMember, number: string, phoneId: string, appSecret: string, greeting: string) {
    const planId = await storePlan(server.ctx, tenant.tenantId, { name: `WhatsApp ${number}`, settings, nodes: [planNode('start', 'start'), planNode('hello', 'play_message', { chat_text: greeting })], edges: [planEdge('start', 'next', 'hello')] });
    const payload = { number, provider: 'whatsapp', chat_plan_id: planId, whatsapp_phone_number_id: phoneId, whatsapp_token: `token-${phoneId}`, whatsapp_app_secret: appSecret };
    const created = await server.call({ method: 'POST', url: '/numbers', token: tenant.token, payload });
    expect(created.statusCode, created.body).toBe(201);
    return { id: created.json<PhoneNumber>().id, phoneId, appSecret };
  }

  /** Meta's delivery of one text message, signed with the number's app secret over the raw body (as Meta signs it). */
  function deliver(number: { id: number; phoneId: string; appSecret: string }, messageId: string, text: string) {
    const message = { id: messageId, from: USER, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } };
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: number.phoneId }, messages: [message] } }] }],
    });
    const signature = `sha256=${createHmac('sha256', number.appSecret).update(body).digest('hex')}`;
    return server.app.inject({ method: 'POST', url: `/api/v1/hooks/whatsapp/${number.id}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, payload: body });
  }

  test("tenant two's signed delivery naming tenant one's message id runs nothing and sends none of tenant one's words", async () => {
    const first = await whatsappNumber(one.member, '+558130000263', '1065400000263', 'app-secret-263', 'Tenant one WhatsApp greeting.');
    const second = await whatsappNumber(two.member, '+558130000264', '1065400000264', 'app-secret-264', 'Tenant two WhatsApp greeting.');
    const opened = await deliver(first, 'wamid.security-one', 'hi');
    expect(opened.statusCode, opened.body).toBe(200);
    expect(await sessionsNamed('whatsapp:wamid.security-one')).toEqual([{ tenant_id: one.member.tenantId }]);
    expect(fake.seen(`/${first.phoneId}/messages`).map((request) => JSON.stringify(request.json))).toEqual([expect.stringContaining('Tenant one WhatsApp greeting.')]);

    const replayed = await deliver(second, 'wamid.security-one', 'hi');
    expect(replayed.statusCode, replayed.body).toBe(200);
    expect(fake.seen(`/${second.phoneId}/messages`)).toEqual([]);
    expect(await sessionsNamed('whatsapp:wamid.security-one')).toEqual([{ tenant_id: one.member.tenantId }]);
  });
});

describe("Twilio's webhooks take forms only", () => {
  test('the same signed fields as JSON are refused with 415 twilio_form_required, and no call starts', async () => {
    const form = callOf(two, 'CA-security-json', { CallStatus: 'ringing' });
    const url = '/api/v1/hooks/twilio/voice';
    const signature = twilio.getExpectedTwilioSignature(two.token, `${PUBLIC_URL}${url}`, form);
    const refused = await server.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', 'x-twilio-signature': signature }, payload: JSON.stringify(form) });
    expect(refused.statusCode, refused.body).toBe(415);
    expect(errorOf(refused).code).toBe('twilio_form_required');
    expect(await sessionsNamed('CA-security-json')).toEqual([]);
  });
});

describe("a recording's URL (issue 26, 1)", () => {
  /** A call of tenant one that ends, then its recording callback (signed by tenant one) naming `recordingUrl`. */
  async function recordedCall(callSid: string, recordingUrl: string): Promise<CallReportRecord | undefined> {
    const first = await hook(one, 'voice', callOf(one, callSid, { CallStatus: 'ringing' }));
    expect(first.statusCode, first.body).toBe(200);
    expect((await hook(one, 'status', callOf(one, callSid, { CallStatus: 'completed', CallDuration: '20' }))).statusCode).toBe(204);
    const callback = /recordingStatusCallback="([^"]+)"/.exec(first.body)![1]!.replaceAll('&amp;', '&').slice(`${PUBLIC_URL}/api/v1/hooks/twilio/`.length);
    const ready = await hook(one, callback, callOf(one, callSid, { RecordingSid: `RE-${callSid}`, RecordingUrl: recordingUrl, RecordingStatus: 'completed', RecordingDuration: '20' }));
    expect(ready.statusCode, ready.body).toBe(204);
    return reportOf(one, callSid);
  }

  test('an address inside the network is never asked; the report says only that the recording could not be read', async () => {
    internalHits.length = 0;
    const report = await recordedCall('CA-security-ssrf', `${internalUrl}/latest/meta-data/`);
    expect(report?.recording).toMatchObject({ status: 'failed', error: 'ai_access_error', results: null });
    expect(internalHits).toEqual([]);
  });

  test("a redirect from Twilio's host to an address off it is not followed", async () => {
    internalHits.length = 0;
    fake.script('/twilio-api/Recordings/RE-redirect', { status: 302, headers: { location: `${internalUrl}/latest/meta-data/` } });
    const report = await recordedCall('CA-security-redirect', `${fake.url}/twilio-api/Recordings/RE-redirect`);
    expect(report?.recording).toMatchObject({ status: 'failed', error: 'ai_access_error' });
    expect(fake.seen('/twilio-api/Recordings/RE-redirect')).toHaveLength(1);
    expect(internalHits).toEqual([]);
  });

  test('a recording larger than the transcription takes is not read whole', async () => {
    fake.script('/twilio-api/Recordings/RE-huge', { body: Buffer.alloc(25 * 1024 * 1024 + 1) });
    const report = await recordedCall('CA-security-huge', `${fake.url}/twilio-api/Recordings/RE-huge`);
    expect(report?.recording).toMatchObject({ status: 'failed', error: 'ai_access_error' });
    expect(fake.seen('/v1/audio/transcriptions')).toEqual([]);
  });
});

describe("a web chat message's control characters", () => {
  test('a message holding NUL (or another control character) is refused and the plan never reads it; line breaks pass', async () => {
    const admin = await server.login();
    const member = await createTenantMember(server, admin, 'security-webchat');
    const planId = await storePlan(server.ctx, member.tenantId, readFixture('help-desk-chat'));
    const created = await server.call({ method: 'POST', url: '/numbers', token: member.token, payload: { number: '+551140000261', provider: 'webchat', chat_plan_id: planId, webchat_origins: [SITE] } });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json<PhoneNumber>().webchat_key;
    const widget = (url: string, payload?: object) =>
      server.app.inject({ method: 'POST', url: `/api/v1/webchat/${key}${url}`, remoteAddress: '203.0.113.26', headers: { origin: SITE }, ...(payload && { payload }) });
    const started = await widget('/conversations');
    expect(started.statusCode, started.body).toBe(200);
    const { conversation_id: id, revision } = started.json<{ conversation_id: string; revision: number }>();

    for (const text of ['hello\u0000world', 'bell\u0007', 'c1\u0085']) {
      const refused = await widget(`/conversations/${id}/messages`, { id: `m-${text.length}-${text.charCodeAt(text.length - 1)}`, text });
      expectInvalid(refused, 'text', 'holds a control character (such as NUL), which a message may not');
    }
    const nulId = await widget(`/conversations/${id}/messages`, { id: 'm\u0000', text: 'hi' });
    expectInvalid(nulId, 'id', 'holds a control character (such as NUL), which a message may not');
    const view = await server.app.inject({ method: 'GET', url: `/api/v1/webchat/${key}/conversations/${id}`, headers: { origin: SITE } });
    expect(view.json<{ revision: number }>().revision).toBe(revision);

    const multiline = await widget(`/conversations/${id}/messages`, { id: 'm-lines', text: 'first line\nsecond\tline' });
    expect(multiline.statusCode, multiline.body).toBe(200);
  });
});

describe('the FastAGI port before the access-control list (issue 26, 2)', () => {
  const FENCED = '+551130000261';
  const PER_ADDRESS = 3;
  let agi: AgiServer;
  let fenced: TenantMember;

  beforeAll(async () => {
    const admin = await server.login();
    fenced = await createTenantMember(server, admin, 'security-agi');
    const planId = await storePlan(server.ctx, fenced.tenantId, { name: 'AGI', settings, nodes: [planNode('start', 'start'), planNode('bye', 'hangup')], edges: [planEdge('start', 'next', 'bye')] });
    for (const [url, payload] of [
      ['/numbers', { number: FENCED, provider: 'asterisk', voice_plan_id: planId }],
      ['/acl', { name: 'PBX', address: '10.0.0.0/8' }],
    ] as const) {
      const created = await server.call({ method: 'POST', url, token: fenced.token, payload });
      expect(created.statusCode, created.body).toBe(201);
    }
    const config = { port: 0, host: '127.0.0.1', sipEndpoint: 'voxplan', dialContext: 'from-voxplan', recordingUrl: undefined, recordingDir: undefined, speechEngine: undefined };
    agi = await startAgiServer(server.ctx, { ...config, maxConnectionsPerAddress: PER_ADDRESS }, server.app.log);
  });

  afterAll(() => agi?.close(0));

  /** A TCP peer of the port, told when the server closes it. `keepsOpen`: its side stays open when the server ends its own, as an attacker's would. */
  async function peer(keepsOpen = false): Promise<{ socket: net.Socket; closed: () => boolean; closing: Promise<unknown> }> {
    const socket = net.connect({ port: agi.port, host: '127.0.0.1', allowHalfOpen: keepsOpen });
    socket.on('error', () => undefined);
    let isClosed = false;
    // events.once would reject on the reset a write to a closed connection meets; only the close matters here.
    const closing = new Promise((resolve) => socket.once('close', resolve)).then(() => (isClosed = true));
    await once(socket, 'connect');
    return { socket, closed: () => isClosed, closing };
  }

  test('a peer off the list that keeps its side open and sends line breaks after its refusal is cut off, its lines not kept', async () => {
    const refusedBefore = agi.refused;
    const flood = await peer(true);
    flood.socket.write(`agi_network: yes\nagi_network_script: ${FENCED}\nagi_callerid: 5511988887777\n\n`);
    await expect.poll(() => agi.refused).toBe(refusedBefore + 1);
    // The old server only half-closed the connection and queued every line it went on reading: 4 MB of line breaks were ~70 MB of its memory.
    const LIMIT = 4 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, '\n');
    let written = 0;
    while (!flood.closed() && written < LIMIT) {
      if (!flood.socket.write(chunk)) await Promise.race([new Promise((resolve) => flood.socket.once('drain', resolve)), flood.closing]);
      written += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.race([flood.closing, new Promise((resolve) => setImmediate(resolve))]);
    expect(flood.closed(), `still open after ${written} bytes`).toBe(true);
    expect(written).toBeLessThan(LIMIT);
  });

  test('what one connection holds unread is bounded: one line past the bound and it is cut, its lines dropped', async () => {
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const accepted = once(listener, 'connection') as Promise<[net.Socket]>;
    const client = net.connect((listener.address() as AddressInfo).port, '127.0.0.1');
    client.on('error', () => undefined);
    const [socket] = await accepted;
    const connection = new AgiConnection(socket);
    try {
      client.write('\n'.repeat(MAX_QUEUED_LINES));
      await expect.poll(() => connection.queued.lines).toBe(MAX_QUEUED_LINES);
      expect(connection.closed).toBe(false);
      client.write('\n');
      await expect.poll(() => connection.closed).toBe(true);
      expect(connection.queued).toEqual({ lines: 0, bytes: 0 });
      expect(socket.destroyed).toBe(true);
    } finally {
      client.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test(`more than ${PER_ADDRESS} connections at once from one address: the next is closed before anything is read, the others go on`, async () => {
    const held = [await peer(), await peer(), await peer()];
    const refusedBefore = agi.refused;
    const extra = await peer();
    await extra.closing;
    expect(held.map((connection) => connection.closed())).toEqual([false, false, false]);
    expect(agi.refused).toBe(refusedBefore + 1);

    // One of them ends: the address may open one again, which the server reads (and refuses by the list, as it should).
    const admin = await server.login();
    const audited = async () => {
      const audit = await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { entity: 'agi_call', tenant_id: fenced.tenantId } })}`, token: admin });
      return audit.json<unknown[]>().length;
    };
    const auditedBefore = await audited();
    held[0]!.socket.destroy();
    await held[0]!.closing;
    await expect
      .poll(async () => {
        const next = await peer();
        next.socket.write(`agi_network_script: ${FENCED}\n\n`);
        await next.closing;
        return audited();
      })
      .toBeGreaterThan(auditedBefore);
    for (const connection of held) connection.socket.destroy();
  });
});
