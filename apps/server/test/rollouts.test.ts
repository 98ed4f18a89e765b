import { createHmac } from 'node:crypto';
import type { Rollout } from '@voxplan/contracts';
import type { PhoneNumber, WebchatConversation } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument, VisualPlanPublished } from '@voxplan/contracts/visual-plan';
import type { LightMyRequestResponse } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contactKeyOf, meetsCandidate, rolloutBucket } from '../src/lib/rollout-choice.ts';
import { createTenantMember, createTenantUser, dialect, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type Instance, planEdge as edge, planNode as node, startInstance } from './sessions-helpers.ts';
import { twilioActionOf, twilioCallForm } from './twilio-callbacks.ts';
import { startTwilioRest, type TwilioRest } from './twilio-rest.ts';
import { type GraphApi, signWhatsapp, startGraphApi, whatsappDelivery, whatsappText } from './whatsapp-graph.ts';
import { statementsOf } from './pg-statements.ts';

/**
 * Staged rollouts (issue 41, docs/rollouts.md): a version published to a share of the sessions,
 * chosen per contact (sticky across calls and channels), pinned contacts, the controls and their
 * audit, sessions that keep their version through a promote or a rollback, and `call_plan`.
 * Calls and chats come in as their providers send them: Twilio's signed voice hooks
 * (https://www.twilio.com/docs/usage/webhooks/voice-webhooks), Meta's signed WhatsApp deliveries
 * and the web chat widget's requests.
 */

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000041';
const TOKEN = 'twilio-auth-token-41';
const VOICE_NUMBER = '+551130004100';
const RECEPTION_NUMBER = '+551130004101';
const WHATSAPP_NUMBER = '+551130004102';
const WHATSAPP_PHONE_ID = '410000000000041';
const APP_SECRET = 'whatsapp-app-secret-41';
const SITE = 'https://shop.example.com';

let server: TestServer;
let graph: GraphApi;
let twilioRest: TwilioRest;
let member: TenantMember;
let guest: TenantMember;
let frontDesk: VisualPlan;
let webchat: PhoneNumber;
let identitySecret: string;
let whatsappNumberId: number;
let serial = 0;

type Body = Record<string, unknown>;

/** Start, a menu whose text names the version, and the version's answer to 1. */
const desk = (words: string) => ({
  format_version: 1,
  nodes: [
    node('start', 'start'),
    node('menu', 'voice_menu', { voice_text: `Version ${words}. Press 1.`, chat_text: `Version ${words}. Type 1.`, options: [{ digits: '1', label: 'One' }] }),
    node('one', 'play_message', { voice_text: `One, from version ${words}.`, chat_text: `One, from version ${words}.` }),
    node('bye', 'hangup'),
  ],
  edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'one'), edge('one', 'next', 'bye')],
});

const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: Body, token = member.token) => server.call({ method, url, token, ...(payload && { payload }) });

function expectCode(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(errorOf(response).code).toBe(code);
}

async function ok<T>(response: Promise<LightMyRequestResponse>, status = 200): Promise<T> {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer.json<T>();
}

async function save(plan: { id: number }, words: string): Promise<number> {
  const current = await ok<VisualPlanDocument>(api('GET', `/visual-plans/${plan.id}/document`));
  return (await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${plan.id}/document`, { base_version: current.version, ...desk(words) }))).version;
}

const publish = (plan: { id: number }, base: number, rollout?: Body) => api('POST', `/visual-plans/${plan.id}/publish`, { base_version: base, ...(rollout && { rollout }) });
const current = async (plan: { id: number }) => (await ok<{ rollout: Rollout | null }>(api('GET', `/visual-plans/${plan.id}/rollout`))).rollout;
const planRow = (plan: { id: number }) => server.ctx.db.selectFrom('visual_plans').select(['published_version', 'rollout_version']).where('id', '=', plan.id).executeTakeFirstOrThrow();

/** A Twilio voice hook request, signed as Twilio signs it. */
function hook(path: string, form: Record<string, string>) {
  const url = `/api/v1/hooks/twilio/${path}`;
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}${url}`, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

/** A call's first turn from `from` to `to`: its TwiML and the version its session runs. */
async function call(from: string, to = VOICE_NUMBER): Promise<{ sid: string; twiml: string; version: number }> {
  const sid = `CA${String(++serial).padStart(32, '0')}`;
  const first = await hook('voice', twilioCallForm({ account: ACCOUNT, callSid: sid, from, to }));
  expect(first.statusCode, first.body).toBe(200);
  const stored = await server.ctx.sessions.find(sid);
  return { sid, twiml: first.body, version: stored!.session.plan_version };
}

/** The caller presses 1 on the call `sid` waiting at the menu: what the call hears next. */
async function press1(sid: string, twiml: string): Promise<string> {
  const answer = await hook(twilioActionOf(twiml, 'Gather', PUBLIC_URL), twilioCallForm({ account: ACCOUNT, callSid: sid, from: '+14155550000', to: VOICE_NUMBER }, { Digits: '1' }));
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.body;
}

/** A WhatsApp message from `waId` (Meta's number, without "+"), delivered as Meta sends it: the version its chat runs. */
async function whatsappFrom(waId: string): Promise<number> {
  const messageId = `wamid.rollout-${++serial}`;
  const body = JSON.stringify(whatsappDelivery(whatsappText(waId, messageId, 'hi'), WHATSAPP_PHONE_ID));
  const response = await server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/whatsapp/${whatsappNumberId}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) },
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(200);
  const stored = await server.ctx.sessions.find(`whatsapp:${messageId}`);
  return stored!.session.plan_version;
}

/** A web chat started by the site's signed-in user `id`: the version its conversation runs. */
async function webchatAs(id: string): Promise<number> {
  const hash = createHmac('sha256', identitySecret).update(id).digest('hex');
  const response = await server.app.inject({
    method: 'POST',
    url: `/api/v1/webchat/${webchat.webchat_key}/conversations`,
    remoteAddress: `198.51.100.${(serial++ % 250) + 1}`,
    headers: { origin: SITE },
    payload: { identity: { id, hash } },
  });
  expect(response.statusCode, response.body).toBe(200);
  const stored = await server.ctx.sessions.find(response.json<WebchatConversation>().conversation_id);
  return stored!.session.plan_version;
}

/** A web chat started by an anonymous visitor whose browser keeps `visitorId`: the version its conversation runs. */
async function webchatAnonymous(visitorId: string): Promise<number> {
  const response = await server.app.inject({
    method: 'POST',
    url: `/api/v1/webchat/${webchat.webchat_key}/conversations`,
    remoteAddress: `198.51.100.${(serial++ % 250) + 1}`,
    headers: { origin: SITE },
    payload: { visitor_id: visitorId },
  });
  expect(response.statusCode, response.body).toBe(200);
  const stored = await server.ctx.sessions.find(response.json<WebchatConversation>().conversation_id);
  return stored!.session.plan_version;
}

/** Phone numbers (E.164) that meet `plan`'s new version at `share` percent, and numbers that do not. */
function numbersFor(planId: number, share: number, count: number): { candidate: string[]; base: string[] } {
  const candidate: string[] = [];
  const base: string[] = [];
  for (let i = 0; candidate.length < count || base.length < count; i++) {
    const number = `+55119${String(70000000 + i)}`;
    (rolloutBucket(planId, number) < share * 100 ? candidate : base).push(number);
  }
  return { candidate: candidate.slice(0, count), base: base.slice(0, count) };
}

async function auditOf(entity: string, entityId: number) {
  const rows = await server.ctx.db.selectFrom('audit_log').selectAll().where('entity', '=', entity).where('entity_id', '=', String(entityId)).orderBy('id').execute();
  return rows.map((row) => ({ action: row.action, username: row.username, before: row.before && (JSON.parse(row.before) as Body), after: row.after && (JSON.parse(row.after) as Body) }));
}

/** Versions of the front desk: 1 is the empty plan; the test publishes 2 and rolls out 3 first. */
let v2: number;
let v3: number;

beforeAll(async () => {
  graph = await startGraphApi();
  twilioRest = await startTwilioRest({ [ACCOUNT]: TOKEN });
  server = await startTestServer({ PUBLIC_URL, WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0', TWILIO_API_URL: twilioRest.url });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'rollouts');
  guest = await createTenantUser(server, admin, member.tenantId, 'rollouts-guest', 'guest');
  await ok(server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { twilio_sid: ACCOUNT, twilio_token: TOKEN } }));

  frontDesk = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Front desk' }), 201);
  v2 = await save(frontDesk, 'two');
  await ok(publish(frontDesk, v2));
  v3 = await save(frontDesk, 'three');

  await ok(api('POST', '/numbers', { number: VOICE_NUMBER, provider: 'twilio', voice_plan_id: frontDesk.id }), 201);
  const whatsapp = await ok<PhoneNumber>(
    api('POST', '/numbers', { number: WHATSAPP_NUMBER, provider: 'whatsapp', chat_plan_id: frontDesk.id, whatsapp_token: 'graph-token-41', whatsapp_app_secret: APP_SECRET, whatsapp_phone_number_id: WHATSAPP_PHONE_ID }),
    201,
  );
  whatsappNumberId = whatsapp.id;
  webchat = await ok<PhoneNumber>(api('POST', '/numbers', { number: '+551130004103', provider: 'webchat', chat_plan_id: frontDesk.id, webchat_origins: [SITE] }), 201);
  identitySecret = (await ok<{ webchat_identity_secret: string }>(api('POST', `/numbers/${webchat.id}/webchat-identity-secret`))).webchat_identity_secret;
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
  await twilioRest?.close();
});

describe('the choice', () => {
  test('over 10,000 contacts, each share meets the new version within ±2 %', () => {
    const contacts = Array.from({ length: 10_000 }, (_, i) => contactKeyOf(`+5521${String(900000000 + i * 7919)}`));
    for (const share of [1, 10, 25, 50, 90]) {
      const met = contacts.filter((contact) => meetsCandidate(4242, contact, { candidate_version: 2, share, pinned: [] })).length;
      expect(Math.abs(met / contacts.length - share / 100), `share ${share}: ${met}`).toBeLessThanOrEqual(0.02);
    }
    // Share 0: the pinned contacts only; share 100: everyone.
    const pinned = [contacts[3]!, contacts[7]!];
    expect(contacts.filter((contact) => meetsCandidate(4242, contact, { candidate_version: 2, share: 0, pinned }))).toEqual(pinned);
    expect(contacts.every((contact) => meetsCandidate(4242, contact, { candidate_version: 2, share: 100, pinned: [] }))).toBe(true);
  });

  test('a number is one contact however the channel writes it', () => {
    expect(['+55 11 91234-5678', '5511912345678', '+5511912345678', '005511912345678'].map(contactKeyOf)).toEqual(Array(4).fill('+5511912345678'));
    // A web chat visitor's id and a PBX extension are kept as they are.
    expect(['user-1842', '1001'].map(contactKeyOf)).toEqual(['user-1842', '1001']);
  });
});

describe('publishing to a rollout', () => {
  test('refused for a plan never published, with a share out of range, for a guest; nothing is stored', async () => {
    const fresh = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Never published' }), 201);
    const base = await save(fresh, 'one');
    expectCode(await publish(fresh, base, { share: 10 }), 409, 'rollout_needs_published');
    expectCode(await publish(frontDesk, v3, { share: 101 }), 400, 'invalid_input');
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/publish`, { base_version: v3, rollout: { share: 10 } }, guest.token), 403, 'readonly_only');
    expect(await planRow(fresh)).toEqual({ published_version: null, rollout_version: null });
    expect(await planRow(frontDesk)).toEqual({ published_version: v2, rollout_version: null });
    expect(await server.ctx.db.selectFrom('visual_plan_versions').select('version').where('plan_id', 'in', [fresh.id, frontDesk.id]).execute()).toEqual([{ version: v2 }]);
    expect(await current(frontDesk)).toBeNull();
    // No rollout running: nothing to change, promote or roll back.
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: 5 }), 404, 'rollout_not_found');
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`), 404, 'rollout_not_found');
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`), 404, 'rollout_not_found');
  });

  test('starts a rollout: the published version stays, the new one meets the share; a second one is refused', async () => {
    const published = await ok<VisualPlanPublished>(publish(frontDesk, v3, { share: 50, pinned: ['+55 11 91234-5678', 'vip-visitor'] }));
    expect(published).toMatchObject({ version: v3, rollout: { base_version: v2, candidate_version: v3, share: 50, pinned: ['+5511912345678', 'vip-visitor'], state: 'running', started_by_name: member.username } });
    expect(await planRow(frontDesk)).toEqual({ published_version: v2, rollout_version: v3 });
    expect(await current(frontDesk)).toEqual(published.rollout);
    expectCode(await publish(frontDesk, v3, { share: 20 }), 409, 'rollout_running');
    // A plain publish while it runs would change what the rest meet: promote or roll back first.
    expectCode(await publish(frontDesk, v3), 409, 'rollout_running');

    const [created] = await auditOf('plan_rollout', published.rollout!.id);
    expect(created).toMatchObject({ action: 'create', username: member.username, after: { plan_name: 'Front desk', base_version: v2, candidate_version: v3, share: 50 } });
  });

  test('sticky across calls and channels: the same number on Twilio and WhatsApp, a web chat visitor', async () => {
    const { candidate, base } = numbersFor(frontDesk.id, 50, 3);
    for (const number of candidate) {
      const calls = [await call(number), await call(number)];
      expect(calls.map((one) => one.version)).toEqual([v3, v3]);
      expect(calls[0]!.twiml).toContain('Version three. Press 1.');
      // Meta writes the number without "+".
      expect(await whatsappFrom(number.slice(1))).toBe(v3);
    }
    for (const number of base) {
      expect([(await call(number)).version, (await call(number)).version, await whatsappFrom(number.slice(1))]).toEqual([v2, v2, v2]);
    }
    // The site's signed-in user: the same visitor meets the same version on every conversation.
    const visitors = Array.from({ length: 6 }, (_, i) => `shopper-${i}`);
    for (const visitor of visitors) {
      const expected = rolloutBucket(frontDesk.id, visitor) < 5000 ? v3 : v2;
      expect([await webchatAs(visitor), await webchatAs(visitor)]).toEqual([expected, expected]);
    }
    // An anonymous visitor: the id the widget keeps in the browser (visitor_id) decides, conversation after conversation.
    for (let i = 0; i < 6; i++) {
      const visitorId = `browser-${i}-0123456789`;
      const expected = rolloutBucket(frontDesk.id, `visitor:${visitorId}`) < 5000 ? v3 : v2;
      expect([await webchatAnonymous(visitorId), await webchatAnonymous(visitorId)]).toEqual([expected, expected]);
    }
    // Pinned: a visitor id and a number typed with spaces.
    expect(await webchatAs('vip-visitor')).toBe(v3);
    expect((await call('+5511912345678')).version).toBe(v3);
  });

  test('an Asterisk caller, an outbound call and a campaign contact: the number on the other end decides', async () => {
    const { candidate, base } = numbersFor(frontDesk.id, 50, 4);
    const start = async (init: { provider: 'asterisk' | 'twilio'; direction: 'inbound' | 'outbound'; caller: string; called: string }) => {
      const outcome = await server.ctx.sessions.start({ tenant_id: member.tenantId, plan_id: frontDesk.id, channel: 'voice', ...init });
      return (await server.ctx.sessions.find(outcome.session_id))!.session.plan_version;
    };
    // As the FastAGI server starts a call: the caller id, here without its "+".
    expect(await start({ provider: 'asterisk', direction: 'inbound', caller: candidate[3]!.slice(1), called: VOICE_NUMBER })).toBe(v3);
    expect(await start({ provider: 'asterisk', direction: 'inbound', caller: base[3]!, called: VOICE_NUMBER })).toBe(v2);
    // As the outbound core starts an answered call (one call or a campaign's): our number calls theirs.
    expect(await start({ provider: 'twilio', direction: 'outbound', caller: VOICE_NUMBER, called: candidate[3]! })).toBe(v3);
    expect(await start({ provider: 'asterisk', direction: 'outbound', caller: VOICE_NUMBER, called: base[3]! })).toBe(v2);
  });

  test('an outbound call nobody answered is reported on the version its number would have met', async () => {
    const { candidate, base } = numbersFor(frontDesk.id, 50, 5);
    for (const [to, version] of [
      [candidate[4]!, v3],
      [base[4]!, v2],
    ] as const) {
      const placed = await server.ctx.outboundCalls.place({ tenant_id: member.tenantId, from: VOICE_NUMBER, to, variables: {}, machine_detection: false });
      await server.ctx.outboundCalls.dialResult(placed.session_id, { dial_status: 'no_answer' });
      const report = await server.ctx.db.selectFrom('call_reports').select(['plan_version', 'disposition']).where('session_id', '=', placed.session_id).executeTakeFirstOrThrow();
      expect(report).toEqual({ plan_version: version, disposition: 'missed' });
    }
  });

  test('share 0: the pinned numbers only; the share and the pinned contacts change in one audited call', async () => {
    const before = (await current(frontDesk))!;
    // Numbers in the share that have not written on WhatsApp yet (a chat still open takes the next message).
    const [inShare, pinned] = numbersFor(frontDesk.id, 50, 5).candidate.slice(3) as [string, string];
    const changed = await ok<Rollout>(api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: 0, pinned: [pinned] }));
    expect(changed).toMatchObject({ id: before.id, share: 0, pinned: [pinned], state: 'running' });
    // The next call sees the change at once: it was in the share, and is no longer.
    expect((await call(inShare)).version).toBe(v2);
    expect(await whatsappFrom(inShare.slice(1))).toBe(v2);
    expect((await call(pinned)).version).toBe(v3);
    expect(await whatsappFrom(pinned.slice(1))).toBe(v3);
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: -1 }), 400, 'invalid_input');
    expectCode(await api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { share: 10 }, guest.token), 403, 'readonly_only');
    expect((await current(frontDesk))!.share).toBe(0);

    const entries = await auditOf('plan_rollout', before.id);
    expect(entries.at(-1)).toMatchObject({ action: 'update', before: { plan_name: 'Front desk', share: 50 }, after: { plan_name: 'Front desk', share: 0, pinned: [pinned] } });
  });
});

describe('promote and roll back while sessions run', () => {
  test('promote: a running call keeps its version to the end, the next call meets the new one', async () => {
    const { candidate } = numbersFor(frontDesk.id, 50, 2);
    const rollout = (await current(frontDesk))!;
    const onBase = await call(candidate[0]!);
    expect(onBase.version).toBe(v2);

    const promoted = await ok<Rollout>(api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`));
    expect(promoted).toMatchObject({ id: rollout.id, state: 'promoted', ended_reason: 'promoted', ended_by_name: member.username });
    expect(await planRow(frontDesk)).toEqual({ published_version: v3, rollout_version: null });
    expect(await press1(onBase.sid, onBase.twiml)).toContain('One, from version two.');
    expect((await call(candidate[0]!)).version).toBe(v3);
    expect(await current(frontDesk)).toBeNull();

    const entries = await auditOf('plan_rollout', rollout.id);
    expect(entries.at(-1)).toMatchObject({ action: 'update', after: { plan_name: 'Front desk', state: 'promoted', base_version: v2, candidate_version: v3 } });
    const planEntries = await auditOf('visual_plan', frontDesk.id);
    expect(planEntries.at(-1)).toMatchObject({ action: 'update', before: { published_version: v2 }, after: { published_version: v3 } });
  });

  test('roll back: a running call keeps the new version to the end, the next call meets the published one', async () => {
    const v4 = await save(frontDesk, 'four');
    const started = await ok<VisualPlanPublished>(publish(frontDesk, v4, { share: 100 }));
    const onCandidate = await call('+5511955550001');
    expect(onCandidate.version).toBe(v4);

    const rolledBack = await ok<Rollout>(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
    expect(rolledBack).toMatchObject({ id: started.rollout!.id, state: 'rolled_back', ended_reason: 'rolled_back', base_version: v3, candidate_version: v4 });
    expect(await planRow(frontDesk)).toEqual({ published_version: v3, rollout_version: null });
    expect(await press1(onCandidate.sid, onCandidate.twiml)).toContain('One, from version four.');
    expect((await call('+5511955550001')).version).toBe(v3);
    expectCode(await api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`), 404, 'rollout_not_found');

    // The history, newest first; the rolled-back draft may be rolled out (or published) again as the same version.
    const history = await ok<Rollout[]>(api('GET', `/visual-plans/${frontDesk.id}/rollouts`));
    expect(history.map((one) => [one.candidate_version, one.state])).toEqual([
      [v4, 'rolled_back'],
      [v3, 'promoted'],
    ]);
    const again = await ok<VisualPlanPublished>(publish(frontDesk, v4, { share: 0, pinned: ['+5511955550002'] }));
    expect(again.rollout).toMatchObject({ candidate_version: v4, state: 'running' });
    expect((await call('+5511955550002')).version).toBe(v4);
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
    expect((await ok<VisualPlanPublished>(publish(frontDesk, v4))).rollout).toBeNull();
    expect(await planRow(frontDesk)).toEqual({ published_version: v4, rollout_version: null });
  });
});

describe('call_plan', () => {
  test("the called plan's own rollout chooses, by the caller's number", async () => {
    const reception = await ok<VisualPlan>(api('POST', '/visual-plans', { name: 'Reception' }), 201);
    const receptionDocument = {
      format_version: 1,
      nodes: [node('start', 'start'), node('desk', 'call_plan', { plan_id: frontDesk.id })],
      edges: [edge('start', 'next', 'desk')],
    };
    const base = (await ok<VisualPlanDocument>(api('GET', `/visual-plans/${reception.id}/document`))).version;
    const saved = await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${reception.id}/document`, { base_version: base, ...receptionDocument }));
    await ok(publish(reception, saved.version));
    await ok(api('POST', '/numbers', { number: RECEPTION_NUMBER, provider: 'twilio', voice_plan_id: reception.id }), 201);

    const v5 = await save(frontDesk, 'five');
    await ok(publish(frontDesk, v5, { share: 50 }));
    const { candidate, base: rest } = numbersFor(frontDesk.id, 50, 2);
    for (const number of candidate) {
      const reached = await call(number, RECEPTION_NUMBER);
      expect(reached.twiml).toContain('Version five. Press 1.');
      expect((await server.ctx.sessions.find(reached.sid))!.session.call_stack).toEqual([expect.objectContaining({ plan_id: frontDesk.id, plan_version: v5 })]);
      // The same caller straight to the front desk meets the same version.
      expect((await call(number)).version).toBe(v5);
    }
    for (const number of rest) expect((await call(number, RECEPTION_NUMBER)).twiml).toContain('Version four. Press 1.');
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
  });
});

// Instances share a database on PostgreSQL (an instance is another process; on SQLite, another process on the same file).
describe.runIf(dialect === 'postgres')('on another instance', () => {
  let instance: Instance | undefined;
  beforeAll(async () => {
    instance = await startInstance(server.config, new Date().toISOString());
  });
  afterAll(async () => {
    await instance?.close();
  });

  test('the next session there sees a change of the rollout at once', async () => {
    const startThere = async (caller: string) => {
      const outcome = await instance!.start({ tenant_id: member.tenantId, plan_id: frontDesk.id, channel: 'voice', provider: 'twilio', caller, called: VOICE_NUMBER });
      return (await server.ctx.sessions.find(outcome.session_id))!.session.plan_version;
    };
    const published = (await planRow(frontDesk)).published_version!;
    const v7 = await save(frontDesk, 'seven');
    await ok(publish(frontDesk, v7, { share: 0 }));
    // Asked twice there: the instance's plan cache keeps the answer from then on.
    expect([await startThere('+5511977770001'), await startThere('+5511977770001')]).toEqual([published, published]);
    await ok(api('PATCH', `/visual-plans/${frontDesk.id}/rollout`, { pinned: ['+5511977770001'] }));
    expect(await startThere('+5511977770001')).toBe(v7);
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/promote`));
    expect(await startThere('+5511977770002')).toBe(v7);
  });
});

describe.runIf(dialect === 'postgres')("a call's first turn", () => {
  /** A third call's first turn, its statements only: the read cache keeps an answer from the second time it is asked. */
  async function steadyCall(from: string): Promise<{ texts: string[]; sid: string }> {
    await call(from);
    await call(from);
    const sid = `CA${String(++serial).padStart(32, '0')}`;
    const texts = await statementsOf(async () => expect((await hook('voice', twilioCallForm({ account: ACCOUNT, callSid: sid, from, to: VOICE_NUMBER }))).statusCode).toBe(200));
    return { texts, sid };
  }

  test('sends as many statements with a rollout running as without', async () => {
    const without = (await steadyCall('+5511966660001')).texts;
    const v6 = await save(frontDesk, 'six');
    await ok(publish(frontDesk, v6, { share: 50, pinned: ['+5511966660002'] }));
    const { texts: withRollout, sid } = await steadyCall('+5511966660002');
    expect((await server.ctx.sessions.find(sid))!.session.plan_version).toBe(v6);
    expect(withRollout.length, withRollout.join('\n')).toBe(without.length);
    // docs/rollouts.md gives the figure: 2 (the start's check and its insert), the plan and its rollout read from the cache.
    await ok(api('POST', `/visual-plans/${frontDesk.id}/rollout/rollback`));
  });
});
