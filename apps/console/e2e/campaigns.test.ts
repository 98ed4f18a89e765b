import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, chooseOption, type ConsoleHarness, createNumber, rowWith, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';
import { startCallee, type Callee } from './campaign-callee.ts';

/**
 * Campaigns (issue 38, docs/console.md): a campaign made in the form, its contacts from a CSV with
 * a bad line (shown with its line number and why), started, its progress moving on the page and on
 * the dashboard as the calls end, paused, resumed, and its calls on the reports screen with
 * direction outbound; in English and in Portuguese. A guest reads it without a control.
 */
const group = 'campaigns';
let harness: ConsoleHarness;
let member: TenantMember;
let guest: TenantMember;
let callee: Callee;
const PLAN = 'Payment reminder';

const node = (id: string, type: string, y: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y }, data });
/** Greets the contact by the list's name and says the amount due (a variable from the list), then hangs up. */
const reminderPlan = {
  nodes: [
    node('start', 'start', 0),
    node('hello', 'play_message', 120, { voice_text: 'Hello {{name}}, you owe {{amount}}.' }),
    node('bye', 'hangup', 240),
  ],
  edges: [
    { id: 'e1', source: 'start', source_exit: 'next', target: 'hello' },
    { id: 'e2', source: 'hello', source_exit: 'next', target: 'bye' },
  ],
};

beforeAll(async () => {
  callee = await startCallee();
  harness = await startConsole(callee.serverEnv);
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'camptenant');
  guest = await createTenantUser(harness.server, admin, member.tenantId, 'campguest', 'guest');
  // National numbers in a list are read as the tenant's country's (docs/campaigns.md).
  const dialing = await harness.server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}`, token: admin, payload: { name: 'camptenant', country: 'BR', time_zone: 'America/Sao_Paulo' } });
  expect(dialing.statusCode, dialing.body).toBe(200);
  await callee.start(harness.server, admin, member, harness.baseUrl);
  const call = async <T>(method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>): Promise<T> => {
    const response = await harness.server.call({ method, url, token: member.token, payload });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json<T>();
  };
  const plan = await call<{ id: number; version: number }>('POST', '/visual-plans', { name: PLAN });
  const saved = await call<{ version: number }>('PUT', `/visual-plans/${plan.id}/document`, { base_version: plan.version, ...reminderPlan });
  await call('POST', `/visual-plans/${plan.id}/publish`, { base_version: saved.version });
  await createNumber(harness.server, member.token, { number: callee.fromNumber, provider: callee.provider, voice_plan_id: plan.id });
  // A web chat cannot place a call: the form does not offer it.
  await createNumber(harness.server, member.token, { number: 'Site chat', provider: 'webchat' });
});
afterAll(async () => {
  await callee?.close();
  await harness?.close();
});

async function openAs(who: TenantMember, path: string, locale: string): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, who.username, who.password);
  await page.goto(path);
  return page;
}

const figure = (page: Page, testId: string) => page.getByTestId(`${testId}-value`).textContent();

const texts = {
  en: {
    path: '/campaigns',
    csv: 'phone,name,amount\n+5511999990001,Ana,10.50\nnot a number,Bruno,20\n+5511999990003,Carla,30\n',
    phones: ['+5511999990001', '+5511999990003'],
    created: 'Campaign created. Upload its contacts next.',
    taken: '2 contacts taken.',
    badLine: ['3', 'Not a valid phone number', 'not a number'],
    running: 'Running',
    paused: 'Paused',
    completed: 'Completed',
    doneOf: (done: number, total: number) => `${done} of ${total} contacts done`,
    outbound: 'Outbound',
  },
  pt: {
    path: '/campanhas',
    // A national number, read with the tenant's country (Brazil).
    csv: 'telefone;nome;valor\n+5511999990011;Ana;10,50\nnúmero ruim;Bruno;20\n(11) 99999-0013;Carla;30\n',
    phones: ['+5511999990011', '+5511999990013'],
    created: 'Campanha criada. Agora envie os contatos dela.',
    taken: '2 contatos aceitos.',
    badLine: ['3', 'Número de telefone inválido', 'número ruim'],
    running: 'Em andamento',
    paused: 'Pausada',
    completed: 'Concluída',
    doneOf: (done: number, total: number) => `${done} de ${total} contatos concluídos`,
    outbound: 'Originada',
  },
} as const;

describe.each([
  ['en', 'en-US'],
  ['pt', 'pt-BR'],
] as const)('a campaign in %s', (language, locale) => {
  const text = texts[language];
  const name = language === 'en' ? 'November reminders' : 'Lembretes de novembro';

  test('made from a CSV with a bad line, started, followed live, paused, resumed, and its calls reported as outbound', async () => {
    const page = await openAs(member, text.path, locale);
    await page.getByTestId('data-table').waitFor();

    // The form: the plan and the calling number by name; the web chat is not offered.
    await page.getByTestId('campaign-new').click();
    await page.getByTestId('campaign-name').fill(name);
    await chooseOption(page, 'campaign-plan', PLAN);
    await page.getByTestId('campaign-number').click();
    await expect.poll(() => page.getByRole('option').allTextContents()).toEqual([callee.fromNumber]);
    await page.getByRole('option', { name: callee.fromNumber }).click();
    // One call at a time, and a busy callee is not called again: the figures move one by one.
    await page.getByTestId('campaign-concurrent').fill('1');
    await page.getByTestId('campaign-retry-busy-attempts').fill('0');
    await screenshotStates(page, 'form', { group });
    await page.getByTestId('campaign-save').click();
    await expect.poll(() => page.getByText(text.created).count()).toBe(1);
    await expect.poll(() => page.getByTestId('campaign-title').textContent()).toBe(name);

    // The contacts: the mapping read from the file's header, then what was taken and the bad line.
    await page.getByTestId('campaign-upload-contacts').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file]').setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(text.csv) });
    await expect.poll(() => page.getByTestId('contacts-mapping-row').count()).toBe(3);
    expect(await page.getByTestId('contacts-variable-2').inputValue()).toBe(language === 'en' ? 'amount' : 'valor');
    // The plan says {{name}} and {{amount}}: the Portuguese list's columns are named so.
    if (language === 'pt') await page.getByTestId('contacts-variable-2').fill('amount');
    // The creation's toast is closed, as a person would: it would cover the dialog's hint in the picture.
    const createdToast = page.locator('.mantine-Notification-root').filter({ hasText: text.created });
    // It may close by itself between the count and the click: then there is nothing left to close.
    if ((await createdToast.count()) > 0) await createdToast.getByRole('button').first().click({ timeout: 5_000 }).catch(() => undefined);
    await expect.poll(() => page.getByText(text.created).count()).toBe(0);
    await screenshotStates(page, 'mapping', { group });
    await page.getByTestId('contacts-upload').click();
    await expect.poll(() => page.getByTestId('contacts-result').textContent()).toContain(text.taken);
    expect(await dialog.getByTestId('contacts-invalid-row').locator('td').allTextContents()).toEqual(text.badLine);
    await screenshotStates(page, 'invalid-lines', { group });
    await page.getByTestId('contacts-close').click();
    await expect.poll(() => page.getByTestId('campaign-invalid-rows').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('campaign-progress-done').textContent()).toBe(text.doneOf(0, 2));

    // A dashboard open beside it follows the campaign too.
    const dashboard = await openAs(member, '/dashboard', locale);

    // Started: the first contact is called; it answers, and the page counts it without a reload.
    await page.getByTestId('campaign-start').click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe(text.running);
    const first = await callee.callTo(text.phones[0]);
    await expect.poll(() => figure(page, 'campaign-in-progress')).toBe('1');
    await first.answer();
    await expect.poll(() => page.getByTestId('campaign-progress-done').textContent()).toBe(text.doneOf(1, 2));
    expect(await figure(page, 'campaign-outcome-answer')).toBe('1');
    await expect.poll(() => dashboard.getByTestId('dashboard-campaign').filter({ hasText: name }).getByTestId('dashboard-campaign-progress').textContent()).toBe('1 / 2');
    await screenshotStates(page, 'progress', { group });

    // Paused and resumed; the buttons follow the status.
    await page.getByTestId('campaign-pause').click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe(text.paused);
    expect(await page.getByTestId('campaign-pause').count()).toBe(0);
    await page.getByTestId('campaign-resume').click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe(text.running);

    // The second contact's line is busy: done, by outcome, and the campaign completes.
    const second = await callee.callTo(text.phones[1]);
    await second.busy();
    await expect.poll(() => page.getByTestId('campaign-progress-done').textContent()).toBe(text.doneOf(2, 2));
    expect(await figure(page, 'campaign-outcome-busy')).toBe('1');
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe(text.completed);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);

    // Its calls on the reports screen, outbound.
    await page.getByTestId('campaign-reports').click();
    await page.waitForURL((url) => url.pathname === '/reports');
    await expect.poll(() => page.getByTestId('table-row').filter({ hasText: text.outbound }).count()).toBe(2);
    expect(await page.getByTestId('table-row').count()).toBe(2);

    // The list: done of total, and no control left for a completed campaign.
    await page.goto(text.path);
    await expect.poll(() => rowWith(page, name).getByTestId('campaign-row-progress').textContent()).toBe('2 / 2');
    expect(await rowWith(page, name).getByTestId('campaign-start').count()).toBe(0);
    await screenshotStates(page, 'list', { group });
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});

test('a guest reads the campaigns and their progress, with no control that would be refused', async () => {
  const page = await openAs(guest, '/campaigns', 'en-US');
  await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
  expect(await page.getByTestId('campaign-new').count()).toBe(0);
  await page.getByTestId('table-row').first().click();
  await page.getByTestId('campaign-progress').waitFor();
  expect(await page.getByTestId('campaign-upload-contacts').count()).toBe(0);
  expect(await page.getByTestId('campaign-cancel').count()).toBe(0);
});
