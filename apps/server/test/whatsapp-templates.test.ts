/**
 * WhatsApp message templates against the local Graph API (whatsapp-graph.ts and
 * whatsapp-graph-templates.ts, with the Meta pages they follow): the sync (paged, on demand,
 * periodic on one instance, from the status webhook), the read-only list, templates sent outside
 * the window with every parameter type, Meta's errors as outcomes and codes, and the 130429 retry.
 */
import type { PhoneNumber, WhatsAppTemplate } from '@voxplan/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { metaOutcomes } from '../src/channels/whatsapp/meta-errors.ts';
import { claimDueNumbers, syncDueTemplates } from '../src/channels/whatsapp/template-sync.ts';
import { approvedTemplate, templateMessage } from '../src/channels/whatsapp/templates.ts';
import { accountById, sendWhatsApp, type WhatsAppAccount } from '../src/channels/whatsapp/whatsapp-channel.ts';
import type { MetaTemplate } from '../src/lib/whatsapp-template-parse.ts';
import { createTenantMember, errorOf, startTestServer, type TenantMember, type TestServer } from './harness.ts';
import { type GraphApi, nowSeconds, signWhatsapp, startGraphApi, templateStatusDelivery, whatsappDelivery } from './whatsapp-graph.ts';
import { allTemplates, orderUpdate, pendingTemplate, promoImage } from './whatsapp-template-fixtures.ts';

const APP_SECRET = 'meta-app-secret-templates';
const TOKEN = 'EAAG-templates-token';
const WABA = '102290129340398';
const PHONE_ID = '106540352249001';
const OTHER_PHONE_ID = '106540352249002';
const CUSTOMER = '5511988887777';

let server: TestServer;
let graph: GraphApi;
let member: TenantMember;
let other: TenantMember;
let guest: TenantMember;
let number: PhoneNumber;
let account: WhatsAppAccount;

/** 130 more approved templates, so that the list comes in two pages of 100. */
const many: MetaTemplate[] = Array.from({ length: 130 }, (_, index) => ({
  id: String(5000 + index),
  name: `notice_${String(index).padStart(3, '0')}`,
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: `Notice ${index} for {{1}}` }],
}));
const seed = (templates: MetaTemplate[], token = TOKEN) => graph.setTemplates(WABA, { token, phoneNumberIds: [PHONE_ID, OTHER_PHONE_ID], templates: templates.map((template) => structuredClone(template)) });

const sync = (numberId: number, token = member.token) => server.call({ method: 'POST', url: `/numbers/${numberId}/whatsapp-templates/sync`, token });
/** The list, filtered as any resource's (`filter={"where":…}`). */
const list = async (where: Record<string, unknown>, token = member.token) => {
  const response = await server.call({ method: 'GET', url: `/whatsapp-templates?filter=${encodeURIComponent(JSON.stringify({ where }))}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<WhatsAppTemplate[]>();
};
const statusOf = async (name: string) => (await server.ctx.db.selectFrom('whatsapp_templates').select(['status', 'rejected_reason']).where('number_id', '=', number.id).where('name', '=', name).executeTakeFirst()) ?? null;

function deliver(numberId: number, payload: unknown) {
  const body = JSON.stringify(payload);
  return server.app.inject({ method: 'POST', url: `/api/v1/hooks/whatsapp/${numberId}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) }, payload: body });
}

beforeAll(async () => {
  graph = await startGraphApi();
  server = await startTestServer({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0', WHATSAPP_RATE_LIMIT_BACKOFF_MS: '1' });
  const admin = await server.login();
  member = await createTenantMember(server, admin, 'templates');
  other = await createTenantMember(server, admin, 'templates-other');
  guest = await createTenantMember(server, admin, 'templates-guest', 'guest');
  const created = await server.call({
    method: 'POST',
    url: '/numbers',
    token: member.token,
    payload: { number: '+551140009001', provider: 'whatsapp', whatsapp_token: TOKEN, whatsapp_app_secret: APP_SECRET, whatsapp_phone_number_id: PHONE_ID, whatsapp_business_account_id: WABA, whatsapp_daily_limit: 2000 },
  });
  expect(created.statusCode, created.body).toBe(201);
  number = created.json<PhoneNumber>();
  account = (await accountById(server.ctx, number.id))!;
});

afterAll(async () => {
  await server?.close();
  await graph?.close();
});

beforeEach(() => {
  graph.sent.length = 0;
  graph.templateRequests.length = 0;
});

describe('the number’s account and tier', () => {
  test('are stored and shown; a tier Meta does not have and an id that is not digits are refused', async () => {
    expect(number).toMatchObject({ whatsapp_business_account_id: WABA, whatsapp_daily_limit: 2000 });
    const tier = await server.call({ method: 'PATCH', url: `/numbers/${number.id}`, token: member.token, payload: { whatsapp_daily_limit: 3000 } });
    expect(tier.statusCode).toBe(400);
    expect(errorOf(tier).details?.map((detail) => detail.path)).toContain('whatsapp_daily_limit');
    const waba = await server.call({ method: 'PATCH', url: `/numbers/${number.id}`, token: member.token, payload: { whatsapp_business_account_id: 'waba-1' } });
    expect(errorOf(waba).details).toContainEqual({ path: 'whatsapp_business_account_id', message: 'invalidWabaId' });
    const unlimited = await server.call({ method: 'PATCH', url: `/numbers/${number.id}`, token: member.token, payload: { whatsapp_daily_limit: null } });
    expect(unlimited.json<PhoneNumber>().whatsapp_daily_limit).toBeNull();
  });
});

describe('syncing on demand', () => {
  test('reads every page of Meta’s list, stores each template parsed, and lists them read-only', async () => {
    seed([...allTemplates, ...many]);
    const response = await sync(number.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ templates: 136, added: 136, updated: 0, removed: 0 });
    // Two pages: the second asked with the cursor Meta gave.
    expect(graph.templateRequests).toHaveLength(2);
    expect(graph.templateRequests[1]).toContain('after=');

    const order = await list({ number_id: number.id, name: 'order_update' });
    expect(order).toHaveLength(1);
    expect(order[0]).toMatchObject({ name: 'order_update', language: 'en_US', category: 'utility', status: 'approved', body_text: 'Hi {{1}}, your total is {{2}}, due {{3}}.', footer: 'Shop Example' });
    expect(order[0]!.parameters.map((parameter) => parameter.key)).toEqual(['header.1', 'body.1', 'body.2', 'body.3', 'button.2']);
    expect((await list({ status: 'rejected' })).map((template) => [template.name, template.rejected_reason])).toEqual([['bad_offer', 'INVALID_FORMAT']]);
    // Another tenant sees none of them; a guest of the tenant reads them.
    expect(await list({}, other.token)).toEqual([]);
    expect((await server.call({ method: 'POST', url: '/whatsapp-templates', token: member.token, payload: {} })).statusCode).toBe(404);

    const audit = await server.ctx.db.selectFrom('audit_log').select(['entity', 'entity_id', 'after']).where('entity', '=', 'whatsapp_templates').execute();
    expect(audit).toEqual([{ entity: 'whatsapp_templates', entity_id: String(number.id), after: JSON.stringify({ templates: 136, added: 136, updated: 0, removed: 0 }) }]);
  });

  test('a template gone from Meta is removed, not left approved; a changed one is updated', async () => {
    seed([...allTemplates, ...many]);
    await sync(number.id);
    seed([{ ...orderUpdate, status: 'PAUSED' }, promoImage]);
    const response = await sync(number.id);
    expect(response.json()).toEqual({ templates: 2, added: 0, updated: 2, removed: 134 });
    expect((await list({ number_id: number.id })).map((template) => `${template.name}:${template.status}`)).toEqual(['order_update:paused', 'promo_image:approved']);
  });

  test('Meta’s refusals and a number without what Meta needs answer clear 4xx codes, and nothing changes', async () => {
    seed(allTemplates, 'another-token');
    const before = await list({ number_id: number.id });
    const badToken = await sync(number.id);
    expect([badToken.statusCode, errorOf(badToken).code]).toEqual([422, 'whatsapp_meta_auth_refused']);
    graph.setTemplates('999', { token: TOKEN, phoneNumberIds: [], templates: [] });
    await server.ctx.db.updateTable('numbers').set({ whatsapp_business_account_id: '12345' }).where('id', '=', number.id).execute();
    const unknown = await sync(number.id);
    expect([unknown.statusCode, errorOf(unknown).code]).toEqual([422, 'whatsapp_meta_refused']);
    await server.ctx.db.updateTable('numbers').set({ whatsapp_business_account_id: '' }).where('id', '=', number.id).execute();
    const missing = await sync(number.id);
    expect([missing.statusCode, errorOf(missing).code]).toEqual([422, 'whatsapp_business_account_missing']);
    await server.ctx.db.updateTable('numbers').set({ whatsapp_business_account_id: WABA }).where('id', '=', number.id).execute();
    expect(await list({ number_id: number.id })).toEqual(before);
    // Another tenant's number is not found; a guest may not sync.
    expect((await sync(number.id, other.token)).statusCode).toBe(404);
    expect(errorOf(await sync(number.id, guest.token)).code).toBe('readonly_only');
  });
});

describe('the periodic sync', () => {
  test('two instances at once sync each due number once; it is due again after the interval', async () => {
    seed(allTemplates);
    await server.ctx.db.updateTable('numbers').set({ whatsapp_templates_due_at: null }).execute();
    const log = { warn: () => undefined };
    const now = new Date();
    const [first, second] = await Promise.all([syncDueTemplates(server.ctx, log, now), syncDueTemplates(server.ctx, log, now)]);
    expect([...first, ...second]).toEqual([number.id]);
    expect(graph.templateRequests).toHaveLength(1);
    expect(await claimDueNumbers(server.ctx.db, 3, new Date(now.getTime() + 2 * 3600_000))).toEqual([]);
    expect(await claimDueNumbers(server.ctx.db, 3, new Date(now.getTime() + 3 * 3600_000))).toEqual([number.id]);
  });
});

describe('Meta’s template status webhook', () => {
  test('approved, rejected with its reason, paused, disabled; a template not known yet brings a sync', async () => {
    seed(allTemplates);
    await sync(number.id);
    const update = async (event: string, template: MetaTemplate, reason?: string) => {
      const value = { event, message_template_id: Number(template.id), message_template_name: template.name!, message_template_language: template.language!, ...(reason && { reason }) };
      const response = await deliver(number.id, templateStatusDelivery(WABA, value));
      expect(response.statusCode, response.body).toBe(200);
    };
    expect(await statusOf('new_offer')).toEqual({ status: 'pending', rejected_reason: '' });
    await update('APPROVED', pendingTemplate);
    expect(await statusOf('new_offer')).toEqual({ status: 'approved', rejected_reason: '' });
    await update('REJECTED', pendingTemplate, 'INCORRECT_CATEGORY');
    expect(await statusOf('new_offer')).toEqual({ status: 'rejected', rejected_reason: 'INCORRECT_CATEGORY' });
    await update('PAUSED', orderUpdate);
    expect((await statusOf('order_update'))?.status).toBe('paused');
    await update('DISABLED', orderUpdate);
    expect((await statusOf('order_update'))?.status).toBe('disabled');
    // Another account's update changes nothing here.
    await deliver(number.id, templateStatusDelivery('777', { event: 'APPROVED', message_template_id: 1001, message_template_name: 'order_update', message_template_language: 'en_US' }));
    expect((await statusOf('order_update'))?.status).toBe('disabled');

    const fresh: MetaTemplate = { id: '2001', name: 'fresh_notice', language: 'pt_BR', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Oi {{1}}' }] };
    seed([...allTemplates, fresh]);
    graph.templateRequests.length = 0;
    await update('APPROVED', fresh);
    expect(graph.templateRequests).toHaveLength(1);
    expect(await statusOf('fresh_notice')).toEqual({ status: 'approved', rejected_reason: '' });
  });
});

describe('sending templates', () => {
  beforeAll(async () => {
    seed(allTemplates);
    await sync(number.id);
  });

  const messagesTo = (contact: string) => server.ctx.db.selectFrom('whatsapp_messages').select(['status', 'error_code', 'template_name', 'error']).where('contact', '=', contact).orderBy('sent_time').orderBy('id').execute();

  test('outside the window a template goes, with every parameter type; a free-form message does not', async () => {
    const order = await approvedTemplate(server.ctx.db, number.id, 'order_update', 'en_US');
    const values = { 'header.1': '#77', 'body.1': 'Ana', 'body.2': 'BRL 12.50', 'body.3': 'May 5, 2027', 'button.2': 'abc' };
    const sentOrder = await sendWhatsApp(server.ctx, account, `+${CUSTOMER}`, [templateMessage(order, values, { 'body.2': 'currency', 'body.3': 'date_time' })], null);
    expect(sentOrder).toMatchObject({ ok: true });
    const promo = await approvedTemplate(server.ctx.db, number.id, 'promo_image', 'pt_BR');
    const sentPromo = await sendWhatsApp(server.ctx, account, `+${CUSTOMER}`, [templateMessage(promo, { 'header.1': 'https://cdn.example.com/p.jpg', 'body.first_name': 'Ana', 'button.0': 'SALE25' })], null);
    expect(sentPromo).toMatchObject({ ok: true });
    expect(graph.sent.map((request) => [request.status, request.body.type])).toEqual([
      [200, 'template'],
      [200, 'template'],
    ]);
    const body = graph.sent[0]!.body as unknown as { template: { components: { parameters: { type: string }[] }[] } };
    expect(body.template.components.flatMap((component) => component.parameters.map((parameter) => parameter.type))).toEqual(['text', 'text', 'currency', 'date_time', 'text']);
    const freeForm = await sendWhatsApp(server.ctx, account, `+${CUSTOMER}`, [{ type: 'text', text: { body: 'Hi', preview_url: false } }], null);
    expect(freeForm).toEqual({ ok: false, reason: 'outside_customer_window' });
    expect(graph.sent).toHaveLength(2);
    expect(await messagesTo(CUSTOMER)).toEqual([
      { status: 'accepted', error_code: null, template_name: 'order_update', error: '' },
      { status: 'accepted', error_code: null, template_name: 'promo_image', error: '' },
    ]);
  });

  test('a template that is not approved, or missing, is refused before Meta is asked', async () => {
    await expect(approvedTemplate(server.ctx.db, number.id, 'bad_offer', 'en_US')).rejects.toMatchObject({ code: 'template_not_approved', params: { name: 'bad_offer', status: 'rejected' } });
    await expect(approvedTemplate(server.ctx.db, number.id, 'order_update', 'pt_BR')).rejects.toMatchObject({ code: 'template_not_found' });
  });

  test('each of Meta’s errors comes back as its outcome with its code, and the failed message is kept with it', async () => {
    const notice = templateMessage(await approvedTemplate(server.ctx.db, number.id, 'invoice_document', 'en_US'), { 'header.1': 'https://cdn.example.com/i.pdf' });
    const contact = '5511977776666';
    const codes = Object.keys(metaOutcomes).map(Number);
    const results = [];
    for (const code of codes) {
      graph.failNext(code, { details: `details of ${code}` });
      // A throughput refusal is tried twice.
      if (code === 130429) graph.failNext(code);
      results.push(await sendWhatsApp(server.ctx, account, `+${contact}`, [notice], 'session-errors'));
    }
    expect(results).toEqual(codes.map((code) => ({ ok: false, reason: metaOutcomes[code as keyof typeof metaOutcomes], code })));
    const stored = await messagesTo(contact);
    expect(stored.map((row) => row.error_code).sort()).toEqual([...codes].sort());
    expect(stored.every((row) => row.status === 'failed' && row.template_name === 'invoice_document')).toBe(true);
    // A code Meta adds later: meta_error, its code kept.
    graph.failNext(139999);
    expect(await sendWhatsApp(server.ctx, account, `+${contact}`, [notice], null)).toEqual({ ok: false, reason: 'meta_error', code: 139999 });
  });

  test('Meta’s own window (131047) is its outcome even when the server thought the customer wrote recently', async () => {
    const contact = '5511966665555';
    const now = new Date().toISOString();
    await server.ctx.db
      .insertInto('whatsapp_messages')
      .values({ id: 'wamid.in.window', tenant_id: member.tenantId, number_id: number.id, direction: 'inbound', contact, session_id: null, status: 'received', sent_time: now, updated_time: now })
      .execute();
    graph.closeWindow(contact);
    expect(await sendWhatsApp(server.ctx, account, `+${contact}`, [{ type: 'text', text: { body: 'Hi', preview_url: false } }], null)).toEqual({ ok: false, reason: 'reengagement_needed', code: 131047 });
  });

  test('a throughput refusal (130429) is retried once: it goes through, or its outcome is rate_limited', async () => {
    const notice = templateMessage(await approvedTemplate(server.ctx.db, number.id, 'welcome_video', 'en_US'), { 'header.1': 'https://cdn.example.com/v.mp4' });
    graph.failNext(130429);
    expect(await sendWhatsApp(server.ctx, account, `+${CUSTOMER}`, [notice], null)).toMatchObject({ ok: true });
    expect(graph.sent.map((request) => request.status)).toEqual([400, 200]);
    graph.sent.length = 0;
    graph.failNext(130429);
    graph.failNext(130429);
    expect(await sendWhatsApp(server.ctx, account, `+${CUSTOMER}`, [notice], null)).toEqual({ ok: false, reason: 'rate_limited', code: 130429 });
    expect(graph.sent).toHaveLength(2);
  });

  test('a failed status from Meta’s webhook keeps its code', async () => {
    const notice = templateMessage(await approvedTemplate(server.ctx.db, number.id, 'welcome_video', 'en_US'), { 'header.1': 'https://cdn.example.com/v.mp4' });
    const sent = await sendWhatsApp(server.ctx, account, '+5511955554444', [notice], null);
    expect(sent.ok).toBe(true);
    const id = sent.ok ? sent.id! : '';
    const status = { id, status: 'failed', timestamp: nowSeconds(), recipient_id: '5511955554444', errors: [{ code: 131026, title: 'Message undeliverable' }] };
    expect((await deliver(number.id, whatsappDelivery({ statuses: [status] }, PHONE_ID))).statusCode).toBe(200);
    const row = await server.ctx.db.selectFrom('whatsapp_messages').select(['status', 'error', 'error_code']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', error: '131026 Message undeliverable', error_code: 131026 });
  });
});
