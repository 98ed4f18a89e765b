/**
 * A WhatsApp number's message templates on the numbers screen: its WhatsApp Business Account and
 * Meta's daily limit tier in the form, and the read-only list synced from the local Graph API
 * (apps/server/test/whatsapp-graph.ts, Meta's `message_templates`), in en and pt.
 */
import type { PhoneNumber } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, type TenantMember } from '../../server/test/harness.ts';
import { type GraphApi, startGraphApi } from '../../server/test/whatsapp-graph.ts';
import { allTemplates } from '../../server/test/whatsapp-template-fixtures.ts';
import { accessibilityViolations, chooseOption, type ConsoleHarness, createNumber, rowWith, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

const WABA = '102290129340399';
const TOKEN = 'EAAG-e2e-templates';
let graph: GraphApi;
let harness: ConsoleHarness;
let member: TenantMember;
let guest: TenantMember;
let number: PhoneNumber;

beforeAll(async () => {
  graph = await startGraphApi();
  graph.setTemplates(WABA, { token: TOKEN, phoneNumberIds: ['106540352249101'], templates: allTemplates });
  harness = await startConsole({ WHATSAPP_GRAPH_URL: graph.graphUrl });
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'templatestenant');
  guest = await createTenantUser(harness.server, admin, member.tenantId, 'templatesguest', 'guest');
  number = await createNumber(harness.server, member.token, {
    number: '+551140007001',
    provider: 'whatsapp',
    whatsapp_token: TOKEN,
    whatsapp_app_secret: 'e2e-app-secret',
    whatsapp_phone_number_id: '106540352249101',
  });
});
afterAll(async () => {
  await harness?.close();
  await graph?.close();
});

/** The number's form: a guest opens it to view. */
async function openNumber(who: TenantMember, locale: string, button = 'number-edit'): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, who.username, who.password);
  await page.goto('/numbers');
  await rowWith(page, '+551140007001').getByTestId(button).click();
  await page.getByTestId('number-templates').waitFor();
  return page;
}

const stored = async () => (await harness.server.call({ method: 'GET', url: `/numbers/${number.id}`, token: member.token })).json<PhoneNumber>();

describe('a WhatsApp number’s templates', () => {
  test('the account id and tier are saved from the form; then Sync now lists the templates with status, category, language and values', async () => {
    const page = await openNumber(member, 'en-US');
    // No account yet: nothing to sync.
    await expect.poll(() => page.getByTestId('number-templates-no-account').isVisible()).toBe(true);
    expect(await page.getByTestId('number-templates-sync').isDisabled()).toBe(true);

    await page.getByTestId('number-waba-id').fill(WABA);
    await chooseOption(page, 'number-daily-limit', '10,000 customers a day');
    await page.getByTestId('number-save').click();
    await expect.poll(() => page.getByText('Number edited.').count()).toBe(1);
    expect(await stored()).toMatchObject({ whatsapp_business_account_id: WABA, whatsapp_daily_limit: 10000 });

    await rowWith(page, '+551140007001').getByTestId('number-edit').click();
    await expect.poll(() => page.getByTestId('number-templates-empty').isVisible()).toBe(true);
    expect(await page.getByTestId('number-daily-limit').inputValue()).toBe('10,000 customers a day');
    await page.getByTestId('number-templates-sync').click();
    await expect.poll(() => page.getByText('Templates synced: 6 templates (6 new, 0 removed).').count()).toBe(1);
    await expect.poll(() => page.getByTestId('number-template').count()).toBe(6);
    const card = (name: string) => page.locator(`[data-testid="number-template"][data-name="${name}"]`);
    expect(await card('order_update').getByTestId('number-template-status').textContent()).toBe('Approved');
    expect(await card('order_update').getByTestId('number-template-category').textContent()).toBe('Utility');
    expect(await card('order_update').getByTestId('number-template-language').textContent()).toBe('en_US');
    expect(await card('order_update').getByTestId('number-template-parameter').allTextContents()).toEqual(['header.1 · text', 'body.1 · text', 'body.2 · text', 'body.3 · text', 'button.2 · text']);
    expect(await card('promo_image').getByTestId('number-template-parameter').allTextContents()).toEqual(['header.1 · image', 'body.first_name · text', 'button.0 · text']);
    expect(await card('bad_offer').getByTestId('number-template-status').textContent()).toBe('Rejected');
    expect(await card('bad_offer').getByTestId('number-template-reason').textContent()).toBe('Rejected by Meta: INVALID_FORMAT');
    expect(await card('new_offer').getByTestId('number-template-status').textContent()).toBe('In review');
    expect(await card('welcome_video').getByTestId('number-template-parameter').allTextContents()).toEqual(['header.1 · video']);

    // Once the toasts above the list are gone, as a person reads it.
    await expect.poll(() => page.locator('.mantine-Notification-root').count()).toBe(0);
    await page.getByTestId('number-templates-synced').scrollIntoViewIfNeeded();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshotStates(page, 'number-templates', { group: 'whatsapp-templates' });
    // At 390 px the sync button and the cards stay within the screen's width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId('number-templates-sync').scrollIntoViewIfNeeded();
    expect(await page.getByTestId('number-templates-sync').evaluate((button) => button.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
    expect(await card('order_update').evaluate((element) => element.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
  });

  test('in Portuguese, and a guest reads the list without the sync button', async () => {
    const page = await openNumber(guest, 'pt-BR', 'number-view');
    await expect.poll(() => page.getByTestId('number-template').count()).toBe(6);
    expect(await page.getByTestId('number-templates-sync').count()).toBe(0);
    const card = page.locator('[data-testid="number-template"][data-name="new_offer"]');
    expect(await card.getByTestId('number-template-status').textContent()).toBe('Em análise');
    expect(await card.getByTestId('number-template-category').textContent()).toBe('Marketing');
    const member_ = await openNumber(member, 'pt-BR');
    await expect.poll(() => member_.getByTestId('number-template').count()).toBe(6);
    expect(await member_.getByTestId('number-templates-sync').textContent()).toBe('Sincronizar agora');
    await member_.getByTestId('number-templates-synced').scrollIntoViewIfNeeded();
    await screenshotStates(member_, 'number-templates', { group: 'whatsapp-templates' });
  });
});
