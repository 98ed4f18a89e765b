import { createHmac } from 'node:crypto';
import type { PhoneNumber, Rollout, WebchatConversation } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import type { LightMyRequestResponse } from 'fastify';
import twilio from 'twilio';
import { expect } from 'vitest';
import { rolloutBucket } from '../src/lib/rollout-choice.ts';
import { createTenantMember, createTenantUser, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { planEdge as edge, planNode as node } from './sessions-helpers.ts';
import { twilioActionOf, twilioCallForm } from './twilio-callbacks.ts';
import { startTwilioRest, type TwilioRest } from './twilio-rest.ts';
import { type GraphApi, signWhatsapp, startGraphApi, whatsappDelivery, whatsappText } from './whatsapp-graph.ts';

/**
 * What the staged rollout tests share (issue 41, docs/rollouts.md): one server per test file with
 * a tenant whose front desk answers a Twilio number, a WhatsApp number and a web chat, and calls and
 * chats sent as their providers send them: Twilio's signed voice hooks
 * (https://www.twilio.com/docs/usage/webhooks/voice-webhooks), Meta's signed WhatsApp deliveries
 * and the web chat widget's requests.
 */

export const PUBLIC_URL = 'https://voice.example.com';
export const ACCOUNT = 'AC00000000000000000000000000000041';
const TOKEN = 'twilio-auth-token-41';
export const VOICE_NUMBER = '+551130004100';
export const RECEPTION_NUMBER = '+551130004101';
const WHATSAPP_NUMBER = '+551130004102';
const WHATSAPP_PHONE_ID = '410000000000041';
const APP_SECRET = 'whatsapp-app-secret-41';
const SITE = 'https://shop.example.com';

export let server: TestServer;
let graph: GraphApi;
let twilioRest: TwilioRest;
export let member: TenantMember;
export let guest: TenantMember;
export let frontDesk: VisualPlan;
let webchat: PhoneNumber;
let identitySecret: string;
let whatsappNumberId: number;
let serial = 0;
/** A fresh number for a call's or a message's id. */
export const nextSerial = (): number => ++serial;

export type Body = Record<string, unknown>;

/** Start, a menu whose text names the version, and the version's answer to 1. */
export const desk = (words: string) => ({
  format_version: 1,
  nodes: [
    node('start', 'start'),
    node('menu', 'voice_menu', { voice_text: `Version ${words}. Press 1.`, chat_text: `Version ${words}. Type 1.`, options: [{ digits: '1', label: 'One' }] }),
    node('one', 'play_message', { voice_text: `One, from version ${words}.`, chat_text: `One, from version ${words}.` }),
    node('bye', 'hangup'),
  ],
  edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'one'), edge('one', 'next', 'bye')],
});

export const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: Body, token = member.token) => server.call({ method, url, token, ...(payload && { payload }) });

export function expectCode(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(errorOf(response).code).toBe(code);
}

export async function ok<T>(response: Promise<LightMyRequestResponse>, status = 200): Promise<T> {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer.json<T>();
}

export async function save(plan: { id: number }, words: string): Promise<number> {
  const current = await ok<VisualPlanDocument>(api('GET', `/visual-plans/${plan.id}/document`));
  return (await ok<VisualPlanDocument>(api('PUT', `/visual-plans/${plan.id}/document`, { base_version: current.version, ...desk(words) }))).version;
}

export const publish = (plan: { id: number }, base: number, rollout?: Body) => api('POST', `/visual-plans/${plan.id}/publish`, { base_version: base, ...(rollout && { rollout }) });
export const current = async (plan: { id: number }) => (await ok<{ rollout: Rollout | null }>(api('GET', `/visual-plans/${plan.id}/rollout`))).rollout;
export const planRow = (plan: { id: number }) => server.ctx.db.selectFrom('visual_plans').select(['published_version', 'rollout_version']).where('id', '=', plan.id).executeTakeFirstOrThrow();

/** A Twilio voice hook request, signed as Twilio signs it. */
export function hook(path: string, form: Record<string, string>) {
  const url = `/api/v1/hooks/twilio/${path}`;
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}${url}`, form) },
    payload: new URLSearchParams(form).toString(),
  });
}

/** A call's first turn from `from` to `to`: its TwiML and the version its session runs. */
export async function call(from: string, to = VOICE_NUMBER): Promise<{ sid: string; twiml: string; version: number }> {
  const sid = `CA${String(++serial).padStart(32, '0')}`;
  const first = await hook('voice', twilioCallForm({ account: ACCOUNT, callSid: sid, from, to }));
  expect(first.statusCode, first.body).toBe(200);
  const stored = await server.ctx.sessions.find(sid);
  return { sid, twiml: first.body, version: stored!.session.plan_version };
}

/** The caller presses 1 on the call `sid` waiting at the menu: what the call hears next. */
export async function press1(sid: string, twiml: string): Promise<string> {
  const answer = await hook(twilioActionOf(twiml, 'Gather', PUBLIC_URL), twilioCallForm({ account: ACCOUNT, callSid: sid, from: '+14155550000', to: VOICE_NUMBER }, { Digits: '1' }));
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.body;
}

/** A WhatsApp message from `waId` (Meta's number, without "+"), delivered as Meta sends it: the version its chat runs. */
export async function whatsappFrom(waId: string): Promise<number> {
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
export async function webchatAs(id: string): Promise<number> {
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
export async function webchatAnonymous(visitorId: string): Promise<number> {
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
export function numbersFor(planId: number, share: number, count: number): { candidate: string[]; base: string[] } {
  const candidate: string[] = [];
  const base: string[] = [];
  for (let i = 0; candidate.length < count || base.length < count; i++) {
    const number = `+55119${String(70000000 + i)}`;
    (rolloutBucket(planId, number) < share * 100 ? candidate : base).push(number);
  }
  return { candidate: candidate.slice(0, count), base: base.slice(0, count) };
}

export async function auditOf(entity: string, entityId: number) {
  const rows = await server.ctx.db.selectFrom('audit_log').selectAll().where('entity', '=', entity).where('entity_id', '=', String(entityId)).orderBy('id').execute();
  return rows.map((row) => ({ action: row.action, username: row.username, before: row.before && (JSON.parse(row.before) as Body), after: row.after && (JSON.parse(row.after) as Body) }));
}

/** Versions of the front desk: 1 is the empty plan; the setup publishes 2 and saves 3. */
export let v2: number;
export let v3: number;

/** The server, Twilio's and Meta's stand-ins, the tenant and its front desk (version 2 published, 3 saved), its numbers. */
export async function startRollouts(): Promise<void> {
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
}

export async function closeRollouts(): Promise<void> {
  await server?.close();
  await graph?.close();
  await twilioRest?.close();
}
