import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { coreCampaignCalls } from '../../server/src/modules/campaigns/campaign-calls.ts';
import { createDispatcher, type Dispatcher } from '../../server/src/modules/campaigns/dispatcher.ts';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { type GraphApi, nowSeconds, signWhatsapp, startGraphApi, whatsappDelivery } from '../../server/test/whatsapp-graph.ts';
import { chooseOption, type ConsoleHarness, createNumber, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

/**
 * A WhatsApp campaign (issue 39, docs/outbound.md "WhatsApp"): made in the form on a WhatsApp
 * number, its contacts from a CSV, started; the number's daily limit (3) lets 3 of the 5 contacts
 * be reached and the page says so ("Reached today: 3 of 3", the others waiting); Meta's statuses
 * of the opening messages (read, delivered, failed 131026, posted to the number's webhook as Meta
 * signs them) show in the results, and the failed one frees its place for the next contact. The server's dispatcher runs over the real outbound core, which
 * sends through the local Graph API of the server's tests (whatsapp-graph.ts); in English and in
 * Portuguese.
 */
const group = 'campaigns-whatsapp';
const APP_SECRET = 'meta-app-secret-e2e-39';
const TOKEN = 'EAAG-e2e-token-39';
let harness: ConsoleHarness;
let member: TenantMember;
let graph: GraphApi;
let dispatcher: Dispatcher;
const PLAN = 'Order ready';
const numbers = { en: { number: '+551140003901', phoneId: '106540352243901', id: 0 }, pt: { number: '+551140003902', phoneId: '106540352243902', id: 0 } };

const node = (id: string, type: string, y: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y }, data });
/** The opening message is an approved template naming the contact's order (a column of the list); then the conversation ends. */
const orderPlan = {
  nodes: [
    node('start', 'start', 0),
    node('ready', 'whatsapp_template', 120, { template_name: 'order_ready', language: 'en_US', parameters: [{ key: 'body.1', value: '{{order}}' }] }),
    node('bye', 'hangup', 240),
  ],
  edges: [
    { id: 'e1', source: 'start', source_exit: 'next', target: 'ready' },
    { id: 'e2', source: 'ready', source_exit: 'sent', target: 'bye' },
  ],
};

beforeAll(async () => {
  graph = await startGraphApi();
  harness = await startConsole({ WHATSAPP_GRAPH_URL: graph.graphUrl, WHATSAPP_GRAPH_VERSION: 'v23.0' });
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'wacampaigns');
  const dialing = await harness.server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}`, token: admin, payload: { name: 'wacampaigns', country: 'BR', time_zone: 'America/Sao_Paulo' } });
  expect(dialing.statusCode, dialing.body).toBe(200);
  const call = async <T>(method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>): Promise<T> => {
    const response = await harness.server.call({ method, url, token: member.token, payload });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json<T>();
  };
  const plan = await call<{ id: number; version: number }>('POST', '/visual-plans', { name: PLAN });
  for (const entry of Object.values(numbers)) {
    const created = await createNumber(harness.server, member.token, {
      number: entry.number,
      provider: 'whatsapp',
      chat_plan_id: plan.id,
      whatsapp_phone_number_id: entry.phoneId,
      whatsapp_token: TOKEN,
      whatsapp_app_secret: APP_SECRET,
    });
    entry.id = created.id;
    // Meta's lowest messaging tier is 250; 3 here, so that 5 contacts cross it.
    await harness.server.ctx.db.updateTable('numbers').set({ whatsapp_daily_limit: 3 }).where('id', '=', created.id).execute();
    await approvedTemplate(created.id, entry.phoneId);
  }
  const saved = await call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...orderPlan });
  await call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version });
  // As main.ts starts it on every instance; a short interval, so that the test waits little.
  dispatcher = createDispatcher(harness.server.ctx, { calls: coreCampaignCalls(harness.server.ctx), intervalMs: 200 });
  dispatcher.start();
});
afterAll(async () => {
  await dispatcher?.stop();
  await harness?.close();
  await graph?.close();
});

/** Meta's approved template `order_ready` (a `message_templates` entry). */
const orderTemplate = {
  id: '1039390002',
  name: 'order_ready',
  language: 'en_US',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Your order {{1}} is ready.', example: { body_text: [['A-1']] } }],
};

/** The number's approved template `order_ready`, as Meta has it and as a sync from Meta stored it. */
async function approvedTemplate(numberId: number, phoneId: string): Promise<void> {
  graph.setTemplates(`waba-${phoneId}`, { token: TOKEN, phoneNumberIds: [phoneId], templates: [orderTemplate] });
  const { components } = orderTemplate;
  await harness.server.ctx.db
    .insertInto('whatsapp_templates')
    .values({ tenant_id: member.tenantId, number_id: numberId, meta_id: `tpl-${numberId}`, name: 'order_ready', language: 'en_US', category: 'utility', status: 'approved', components: JSON.stringify(components), synced_time: new Date().toISOString() })
    .execute();
}

/** Meta's status update of one of the number's messages, posted to its webhook signed as Meta signs it. */
async function metaStatus(entry: (typeof numbers)['en'], messageId: string, to: string, name: string, errors?: Array<{ code: number; title: string }>): Promise<void> {
  const body = JSON.stringify(whatsappDelivery({ statuses: [{ id: messageId, status: name, timestamp: nowSeconds(), recipient_id: to.slice(1), ...(errors && { errors }) }] }, entry.phoneId));
  const response = await fetch(`${harness.baseUrl}/api/v1/hooks/whatsapp/${entry.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsapp(body, APP_SECRET) },
    body,
  });
  expect(response.status).toBe(200);
}

/** Whether the element is wholly inside the page's viewport. */
async function inView(page: Page, locator: ReturnType<Page['getByTestId']>): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width;
}

async function openAs(who: TenantMember, path: string, locale: string): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, who.username, who.password);
  await page.goto(path);
  return page;
}

const texts = {
  en: {
    path: '/campaigns',
    csv: 'phone,name,order\n+5511966660001,Ana,A-1\n+5511966660002,Bruno,A-2\n+5511966660003,Carla,A-3\n+5511966660004,Davi,A-4\n+5511966660005,Eva,A-5\n',
    created: 'Campaign created. Upload its contacts next.',
    taken: '5 contacts taken.',
    doneOf: '3 of 5 contacts done',
    doneOf4: '4 of 5 contacts done',
    phones: ['+5511966660001', '+5511966660002', '+5511966660003'],
    reached: 'Reached today: 3 of 3',
    statuses: ['Read', 'Delivered', 'Failed · 131026', 'Accepted', '—'],
    read: 'Read',
  },
  pt: {
    path: '/campanhas',
    csv: 'telefone;nome;pedido\n(11) 96666-0011;Ana;P-1\n(11) 96666-0012;Bruno;P-2\n(11) 96666-0013;Carla;P-3\n(11) 96666-0014;Davi;P-4\n(11) 96666-0015;Eva;P-5\n',
    created: 'Campanha criada. Agora envie os contatos dela.',
    taken: '5 contatos aceitos.',
    doneOf: '3 de 5 contatos concluídos',
    doneOf4: '4 de 5 contatos concluídos',
    phones: ['+5511966660011', '+5511966660012', '+5511966660013'],
    reached: 'Alcançados hoje: 3 de 3',
    statuses: ['Lida', 'Entregue', 'Falhou · 131026', 'Aceita', '—'],
    read: 'Lida',
  },
} as const;

describe.each([
  ['en', 'en-US'],
  ['pt', 'pt-BR'],
] as const)('a WhatsApp campaign in %s', (language, locale) => {
  const text = texts[language];
  const entry = numbers[language];
  const name = language === 'en' ? 'Orders ready' : 'Pedidos prontos';

  test('made from a CSV on a WhatsApp number, started, kept under the daily limit, its results with Meta’s delivery statuses', async () => {
    const page = await openAs(member, text.path, locale);
    await page.getByTestId('data-table').waitFor();
    await page.getByTestId('campaign-new').click();
    await page.getByTestId('campaign-name').fill(name);
    await chooseOption(page, 'campaign-plan', PLAN);
    // The WhatsApp numbers are offered beside the calling ones.
    await chooseOption(page, 'campaign-number', entry.number);
    await page.getByTestId('campaign-save').click();
    await expect.poll(() => page.getByText(text.created).count()).toBe(1);

    await page.getByTestId('campaign-upload-contacts').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file]').setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(text.csv) });
    await expect.poll(() => page.getByTestId('contacts-mapping-row').count()).toBe(3);
    // The plan's template says {{order}}: the Portuguese list's column is named so.
    if (language === 'pt') await page.getByTestId('contacts-variable-2').fill('order');
    await page.getByTestId('contacts-upload').click();
    await expect.poll(() => page.getByTestId('contacts-result').textContent()).toContain(text.taken);
    await page.getByTestId('contacts-close').click();

    // Started: three contacts get the template; the limit holds the other two, pending.
    const sentBefore = graph.sent.length;
    await page.getByTestId('campaign-start').click();
    await expect.poll(() => page.getByTestId('campaign-progress-done').textContent(), { timeout: 30_000 }).toBe(text.doneOf);
    await expect.poll(() => page.getByTestId('campaign-reach-value').textContent()).toBe(text.reached);
    await expect.poll(() => page.getByTestId('campaign-reach-waiting').isVisible()).toBe(true);
    expect(await page.getByTestId('campaign-pending-value').textContent()).toBe('2');
    const sent = graph.sent.slice(sentBefore);
    expect(sent.map((request) => [request.body.type, (request.body.template as { name?: string } | undefined)?.name])).toEqual(Array.from({ length: 3 }, () => ['template', 'order_ready']));
    expect(sent.map((request) => JSON.stringify(request.body.template))).toEqual((language === 'en' ? ['A-1', 'A-2', 'A-3'] : ['P-1', 'P-2', 'P-3']).map((order) => expect.stringContaining(`"text":"${order}"`)));
    await screenshotStates(page, 'reach', { group });

    // Meta tells what became of each opening message; the results say it, a failure with Meta's code.
    const openingTo = (line: number) => sent.find((request) => request.body.to === text.phones[line]!.slice(1))!;
    await metaStatus(entry, openingTo(0).id!, text.phones[0]!, 'read');
    await metaStatus(entry, openingTo(1).id!, text.phones[1]!, 'delivered');
    await metaStatus(entry, openingTo(2).id!, text.phones[2]!, 'failed', [{ code: 131026, title: 'Message undeliverable' }]);
    // A message Meta could not deliver does not count against the limit: the place it frees goes to the next contact.
    await expect.poll(() => page.getByTestId('campaign-progress-done').textContent(), { timeout: 30_000 }).toBe(text.doneOf4);
    await expect.poll(() => page.getByTestId('campaign-reach-value').textContent()).toBe(text.reached);
    await page.getByTestId('table-refresh').click();
    await expect.poll(async () => (await page.getByTestId('table-row').allTextContents()).map((row) => text.statuses.find((status) => status !== '—' && row.includes(status)) ?? '—')).toEqual(text.statuses);
    // On a phone the reach line fits the screen once scrolled to, as a person reads it.
    const original = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    const reach = page.getByTestId('campaign-reach');
    await reach.scrollIntoViewIfNeeded();
    await expect.poll(() => inView(page, reach)).toBe(true);
    await page.setViewportSize(original);
    // The results table in sight, as a person scrolls to it.
    // The results in sight, as a person scrolls to them: the whole table, and on a phone its Message column.
    const showResults = async (shot: Page) => {
      await shot.getByTestId('table-row').last().evaluate((row) => row.scrollIntoView({ block: 'end' }));
      await shot.getByTestId('campaign-message-status').first().evaluate((badge) => badge.scrollIntoView({ block: 'nearest', inline: 'center' }));
    };
    await screenshotStates(page, 'results', { group, settle: showResults });
    expect(await inView(page, page.getByTestId('campaign-message-status').first())).toBe(true);

    // The first contact's report: outbound, and the opening message as Meta last reported it.
    const reports = await harness.server.call({ method: 'GET', url: `/reports?filter=${encodeURIComponent(JSON.stringify({ where: { caller: text.phones[0] } }))}`, token: member.token });
    const [report] = reports.json<Array<{ id: number; direction: string }>>();
    expect(report?.direction).toBe('outbound');
    await page.goto(`/reports/${report!.id}`);
    const messages = page.getByTestId('report-whatsapp-section');
    await expect.poll(() => messages.getByTestId('report-whatsapp-status').allTextContents()).toEqual([text.read]);
    await screenshotStates(page, 'report', { group, settle: () => messages.evaluate((section) => section.scrollIntoView({ block: 'center' })).then(() => undefined) });
  });
});
