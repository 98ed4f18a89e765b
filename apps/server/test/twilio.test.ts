/**
 * Twilio's voice webhooks end to end: requests signed by the official library's own signing
 * function, a whole IVR call through the two endpoints, every signature failure, the signed media
 * URLs, and SMS through the library's client against a local server playing Twilio's Messages API.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallReportRecord } from '@voxplan/contracts';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMediaUrls, MEDIA_URL_TTL_SECONDS } from '../src/modules/audios/media-urls.ts';
import { probe, uploadCall } from './audio-fixtures.ts';
import { createTenantMember, errorOf, q, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { readFixture, storePlan } from './sessions-helpers.ts';
import { twilioActionOf, twilioCallForm } from './twilio-callbacks.ts';

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000001';
const TOKEN = 'twilio-auth-token-1';
const NUMBER = '+551130000000';
const CALLER = '+14155550100';
/** Callers from here reach the closed plan, by the number's rule. */
const RULE_CALLER = '+5511999990000';

let server: TestServer;
let member: TenantMember;
let adminToken: string;
let numberId: number;
let closedPlan: number;
let sms: http.Server;
const smsRequests: Array<{ url: string; authorization: string | undefined; form: URLSearchParams }> = [];

type Form = Record<string, string>;

/** A request to a hook as Twilio sends it: the form signed for PUBLIC_URL + path with the token. */
function hook(path: string, form: Form, options: { token?: string; signedUrl?: string; signature?: string | null } = {}) {
  const url = `/api/v1/hooks/twilio/${path}`;
  const signature =
    options.signature === undefined ? twilio.getExpectedTwilioSignature(options.token ?? TOKEN, options.signedUrl ?? `${PUBLIC_URL}${url}`, form) : options.signature;
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature !== null && { 'x-twilio-signature': signature }) },
    payload: new URLSearchParams(form).toString(),
  });
}

const callForm = (callSid: string, extra: Form = {}, from = CALLER): Form => twilioCallForm({ account: ACCOUNT, callSid, from, to: NUMBER }, extra);

/** The path and query of the action URL of the document's verb (`Gather`, `Dial`), as Twilio will call it. */
const actionOf = (twiml: string, verb: string): string => twilioActionOf(twiml, verb, PUBLIC_URL);

async function reportOf(sessionId: string): Promise<CallReportRecord | undefined> {
  const response = await server.call({ method: 'GET', url: `/reports?${q('filter', { where: { session_id: sessionId } })}`, token: member.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<CallReportRecord[]>()[0];
}

const eventsOf = (sessionId: string) => server.ctx.db.selectFrom('session_events').select('event_id').where('session_id', '=', sessionId).execute();

beforeAll(async () => {
  sms = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      smsRequests.push({ url: request.url ?? '', authorization: request.headers.authorization, form: new URLSearchParams(body) });
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid: 'SM0000000000000000000000000000001', status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({ PUBLIC_URL, TWILIO_API_URL: `http://127.0.0.1:${(sms.address() as AddressInfo).port}/twilio-api` });
  const admin = await server.login();
  adminToken = admin;
  member = await createTenantMember(server, admin, 'twilio');
  const tenantId = member.tenantId;
  const integrations = await server.call({ method: 'PATCH', url: `/tenants/${tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } });
  expect(integrations.statusCode, integrations.body).toBe(200);

  const create = async (url: string, payload: Record<string, unknown>) => {
    const response = await server.call({ method: 'POST', url, token: member.token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: number }>().id;
  };
  const salesDesk = await create('/destinations', { name: 'Sales desk', kind: 'voice', uri: 'sip:sales@pbx.acme.example' });
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  const always = await create('/date-ranges', { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) });
  const never = await create('/date-ranges', { name: 'Never', time_zone: 'UTC', intervals: [] });
  const references = (dateRange: number) => ({ destination: { 1: salesDesk }, date_range: { 1: dateRange } });
  const open = await storePlan(server.ctx, tenantId, readFixture('front-desk'), { references: references(always) });
  const closed = await storePlan(server.ctx, tenantId, readFixture('front-desk'), { name: 'Front desk, closed', references: references(never) });

  // Callers from +5511 get the closed plan by the number's rule; everyone else the number's plan.
  closedPlan = closed;
  numberId = await create('/numbers', { number: NUMBER, provider: 'twilio', voice_plan_id: open, rules: [{ caller_prefixes: ['+5511'], plan_id: closed }] });
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => sms?.close(resolve));
});

describe('a whole IVR call through the voice hook and the status callback', () => {
  test('start, schedule, menu, a busy destination, a retried callback answered again, the end and its report', async () => {
    const first = await hook('voice', callForm('CA-ivr-busy', { CallStatus: 'ringing' }));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/xml/);
    // The schedule is open: the welcome, the recording of the rest of the call, then the menu's prompt inside its gather.
    expect(first.body).toMatch(/<Say language="en-US" voice="Polly.Joanna">Welcome to ACME\. Your protocol is \d{8}-\d{6}\.<\/Say><Start><Recording [^>]*\/><\/Start><Gather /);
    expect(first.body).toContain('<Say language="en-US" voice="Polly.Joanna">For sales press 1. For self service press 2.</Say></Gather>');
    expect(first.body).toContain('input="dtmf"');

    const gather = actionOf(first.body, 'Gather');
    const dial = await hook(gather, callForm('CA-ivr-busy', { Digits: '1' }));
    expect(dial.statusCode, dial.body).toBe(200);
    expect(dial.body).toMatch(/<Dial [^>]*timeout="25"[^>]*><Sip>sip:sales@pbx\.acme\.example<\/Sip><\/Dial>/);

    const dialAction = actionOf(dial.body, 'Dial');
    const busy = await hook(dialAction, callForm('CA-ivr-busy', { DialCallStatus: 'busy' }));
    expect(busy.statusCode, busy.body).toBe(200);
    expect(busy.body).toContain('<Say language="en-US" voice="Polly.Joanna">All our agents are busy. Please try again later.</Say><Hangup/>');
    const eventsBefore = await eventsOf('CA-ivr-busy');

    // Twilio retries the callback (a timeout on its side): the same answer, and nothing runs again.
    const retried = await hook(dialAction, callForm('CA-ivr-busy', { DialCallStatus: 'busy' }));
    expect(retried.statusCode).toBe(200);
    expect(retried.body).toBe(busy.body);
    expect(await eventsOf('CA-ivr-busy')).toEqual(eventsBefore);
    // A retried key press too.
    expect((await hook(gather, callForm('CA-ivr-busy', { Digits: '1' }))).body).toBe(dial.body);

    const ended = await hook('status', callForm('CA-ivr-busy', { CallStatus: 'completed', CallDuration: '31' }));
    expect(ended.statusCode, ended.body).toBe(204);
    const report = await reportOf('CA-ivr-busy');
    expect(report).toMatchObject({
      provider: 'twilio',
      caller: CALLER,
      called: NUMBER,
      source_ip: '127.0.0.1',
      dial_status: 'busy',
      hangup_cause: 'normal_clearing',
      pressed_digits: [expect.objectContaining({ digits: '1' })],
    });
    expect(report?.nodes.map((node) => node.node_id)).toEqual(['start', 'hours', 'welcome', 'rec', 'menu', 'route', 'sales_phone', 'try_later', 'bye']);
  });

  test('an answered destination ends the call routed; the recording reaches the report', async () => {
    const first = await hook('voice', callForm('CA-ivr-answer'));
    const dial = await hook(actionOf(first.body, 'Gather'), callForm('CA-ivr-answer', { Digits: '1' }));
    const answered = await hook(actionOf(dial.body, 'Dial'), callForm('CA-ivr-answer', { DialCallStatus: 'completed' }));
    expect(answered.body).toMatch(/<Response><Hangup\/><\/Response>$/);

    const recordingUrl = /recordingStatusCallback="([^"]+)"/.exec(first.body)![1]!.replaceAll('&amp;', '&').slice(`${PUBLIC_URL}/api/v1/hooks/twilio/`.length);
    const recording = await hook(
      recordingUrl,
      callForm('CA-ivr-answer', { RecordingSid: 'RE01', RecordingUrl: 'https://api.twilio.com/recordings/RE01', RecordingStatus: 'completed', RecordingDuration: '12' }),
    );
    expect(recording.statusCode, recording.body).toBe(204);
    expect(await reportOf('CA-ivr-answer')).toMatchObject({
      disposition: 'routed',
      dial_status: 'answer',
      recording: expect.objectContaining({ url: 'https://api.twilio.com/recordings/RE01', duration_s: 12 }),
    });
  });

  test('the caller hanging up at the menu: the status callback ends the session as abandoned', async () => {
    await hook('voice', callForm('CA-ivr-hangup'));
    expect((await server.ctx.sessions.find('CA-ivr-hangup'))?.session.status).toBe('waiting');
    expect((await hook('status', callForm('CA-ivr-hangup', { CallStatus: 'completed' }))).statusCode).toBe(204);
    expect(await reportOf('CA-ivr-hangup')).toMatchObject({ hangup_cause: 'caller_hangup', disposition: 'abandoned', last_node_id: 'menu', dial_status: null });
  });

  test("a caller matching the number's rule gets the rule's plan: closed, with an SMS through Twilio's Messages API", async () => {
    const before = smsRequests.length;
    const answer = await hook('voice', callForm('CA-rule', {}, RULE_CALLER));
    expect(answer.body).toContain('<Say language="en-US" voice="Polly.Joanna">We are closed. We will send you our opening hours.</Say><Hangup/>');
    const sent = smsRequests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(`/twilio-api/2010-04-01/Accounts/${ACCOUNT}/Messages.json`);
    expect(sent[0]!.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`);
    expect(Object.fromEntries(sent[0]!.form)).toMatchObject({ To: RULE_CALLER, From: NUMBER, Body: expect.stringMatching(/^ACME opens Monday to Friday/) });
    const session = await server.ctx.sessions.find('CA-rule');
    expect(session?.session.path.find((entry) => entry.node_id === 'notify')?.exit).toBe('sent');
  });
});

describe('signatures', () => {
  test('missing, tampered, for another URL or signed with another token: 403, and no session starts', async () => {
    const form = callForm('CA-forged');
    const refusals = [
      await hook('voice', form, { signature: null }),
      await hook('voice', form, { signature: twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}/api/v1/hooks/twilio/voice`, { ...form, From: '+15550000000' }) }),
      await hook('voice', form, { signedUrl: 'https://elsewhere.example/api/v1/hooks/twilio/voice' }),
      await hook('voice', form, { token: 'not-the-tenant-token' }),
    ];
    for (const refused of refusals) {
      expect(refused.statusCode, refused.body).toBe(403);
      expect(errorOf(refused)).toMatchObject({ statusCode: 403, code: 'invalid_twilio_signature' });
    }
    expect(await server.ctx.sessions.find('CA-forged')).toBeUndefined();
  });

  test('a callback whose query was changed (another revision) or whose keys were changed is refused, and the session stays where it was', async () => {
    const first = await hook('voice', callForm('CA-tamper'));
    const gather = actionOf(first.body, 'Gather');
    const signedUrl = `${PUBLIC_URL}/api/v1/hooks/twilio/${gather}`;
    const form = callForm('CA-tamper', { Digits: '1' });
    const otherRevision = gather.replace(/rev=\d+/, 'rev=99');
    const refused = [
      await hook(otherRevision, form, { signedUrl }),
      await hook(gather, form, { signature: twilio.getExpectedTwilioSignature(TOKEN, signedUrl, { ...form, Digits: '2' }) }),
      await hook('status', callForm('CA-tamper', { CallStatus: 'completed' }), { signature: null }),
    ];
    expect(refused.map((response) => response.statusCode)).toEqual([403, 403, 403]);
    const stored = await server.ctx.sessions.find('CA-tamper');
    expect(stored).toMatchObject({ session: { status: 'waiting', node_id: 'menu' } });
  });

  test('over a real connection behind a proxy: the URL signed is PUBLIC_URL + path, not the address the server was reached at', async () => {
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const form = callForm('CA-proxied', { CallStatus: 'ringing' });
    const post = (signedFor: string) =>
      fetch(`${address}/api/v1/hooks/twilio/voice`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, signedFor, form) },
        body: new URLSearchParams(form),
      });
    expect((await post(`${address}/api/v1/hooks/twilio/voice`)).status).toBe(403);
    const answered = await post(`${PUBLIC_URL}/api/v1/hooks/twilio/voice`);
    expect(answered.status).toBe(200);
    const twiml = await answered.text();
    expect(twiml).toContain('<Gather ');
    // Twilio retrying the first request (no answer in time) hears the same start, not a second call.
    expect(await (await post(`${PUBLIC_URL}/api/v1/hooks/twilio/voice`)).text()).toBe(twiml);
    expect(await eventsOf('CA-proxied')).toHaveLength(1);
  });

  test('an unknown number answers TwiML that says so and hangs up', async () => {
    const response = await hook('voice', { ...callForm('CA-unknown'), To: '+15005550006' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/<Response><Say[^>]*>The number you have called is not in service\. Goodbye\.<\/Say><Hangup\/><\/Response>$/);
    expect(await server.ctx.sessions.find('CA-unknown')).toBeUndefined();
  });
});

describe('signed media URLs', () => {
  test('a play action carries a URL Twilio fetches without a token; expired or tampered answers 403', async () => {
    const upload = await server.call({ ...uploadCall({ name: 'Greeting' }), token: member.token });
    expect(upload.statusCode, upload.body).toBe(201);
    const audioId = upload.json<{ id: number }>().id;
    const media = createMediaUrls(server.ctx.keys.mediaKey, PUBLIC_URL);
    const signed = new URL(media.audioUrl(audioId));
    expect(signed.pathname).toBe(`/api/v1/media/audios/${audioId}`);

    const fetched = await server.app.inject({ method: 'GET', url: `${signed.pathname}${signed.search}` });
    expect(fetched.statusCode, fetched.body).toBe(200);
    expect(fetched.headers['content-type']).toBe('audio/wav');
    expect(probe(fetched.rawPayload)).toMatchObject({ sampleRate: 8000, channels: 1 });

    const exp = Number(signed.searchParams.get('exp'));
    const sig = signed.searchParams.get('sig')!;
    // Two characters that differ from the signature's last two, whatever they are (a fixed "AA" matched 1 run in 4,096).
    const tampered = `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    const past = new URL(media.audioUrl(audioId, new Date(Date.now() - (MEDIA_URL_TTL_SECONDS + 60) * 1000)));
    const cases: Array<[string, string]> = [
      [`/api/v1/media/audios/${audioId}`, 'invalid_media_signature'],
      [`/api/v1/media/audios/${audioId}?exp=${exp}`, 'invalid_media_signature'],
      [`/api/v1/media/audios/${audioId}?exp=${exp + 3600}&sig=${sig}`, 'invalid_media_signature'],
      [`/api/v1/media/audios/${audioId + 1}?exp=${exp}&sig=${sig}`, 'invalid_media_signature'],
      [`/api/v1/media/audios/${audioId}?exp=${exp}&sig=${tampered}`, 'invalid_media_signature'],
      [`${past.pathname}${past.search}`, 'media_url_expired'],
    ];
    for (const [url, code] of cases) {
      const refused = await server.app.inject({ method: 'GET', url });
      expect(refused.statusCode, url).toBe(403);
      expect(errorOf(refused).code, url).toBe(code);
    }
  });
});

describe('the number and the auth token are kept between calls, and read again once changed', () => {
  // Each is asked for twice first, so that the read cache keeps it (it keeps an answer from its second ask).
  const openCall = async (sid: string, from = CALLER) => (await hook('voice', callForm(sid, {}, from))).body;

  test("a new auth token: the next request signed with the old one is refused, the new one's accepted", async () => {
    expect(await openCall('CA-kept-1')).toContain('<Gather ');
    expect(await openCall('CA-kept-2')).toContain('<Gather ');
    const rotate = (token: string) => server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: adminToken, payload: { twilio_sid: ACCOUNT, twilio_token: token } });
    const rotated = await rotate('twilio-auth-token-2');
    expect(rotated.statusCode, rotated.body).toBe(200);
    try {
      const old = await hook('voice', callForm('CA-kept-3'));
      expect(old.statusCode).toBe(403);
      expect(errorOf(old).code).toBe('invalid_twilio_signature');
      const gather = await hook('voice', callForm('CA-kept-3'), { token: 'twilio-auth-token-2' });
      expect(gather.statusCode, gather.body).toBe(200);
      expect(gather.body).toContain('<Gather ');
    } finally {
      expect((await rotate(TOKEN)).statusCode).toBe(200);
    }
  });

  test("the number's rules changed: the next call takes the new route", async () => {
    expect(await openCall('CA-route-1', RULE_CALLER)).toContain('We are closed');
    expect(await openCall('CA-route-2', RULE_CALLER)).toContain('We are closed');
    const patch = (rules: unknown[]) => server.call({ method: 'PATCH', url: `/numbers/${numberId}`, token: member.token, payload: { rules } });
    expect((await patch([])).statusCode).toBe(200);
    try {
      expect(await openCall('CA-route-3', RULE_CALLER)).toContain('<Gather ');
      expect(await openCall('CA-route-4', RULE_CALLER)).toContain('<Gather ');
      // Callers from +1 to the closed plan now.
      const changed = await patch([{ caller_prefixes: ['+1'], plan_id: closedPlan }]);
      expect(changed.statusCode, changed.body).toBe(200);
      expect(await openCall('CA-route-5')).toContain('We are closed');
    } finally {
      expect((await patch([{ caller_prefixes: ['+5511'], plan_id: closedPlan }])).statusCode).toBe(200);
    }
    expect(await openCall('CA-route-6')).toContain('<Gather ');
  });
});
