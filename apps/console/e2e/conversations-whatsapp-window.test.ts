/**
 * The agent's composer and WhatsApp's 24-hour window (issue 39, docs/conversations.md "The customer
 * service window") in Chromium, with customers through the local Graph API: the time left is shown
 * and counted down by the page's clock (a warning in the last hour); past the window the free-text
 * box gives way to the number's approved templates, a typed form and a preview; the template sent
 * reaches Meta and the transcript; the customer's reply brings the free text back. Meta's clock is
 * the message's `timestamp`; the page's is Playwright's. Screenshots in en and pt, light and dark,
 * at 1280 and 390 px.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { composerTemplates, storeTemplates } from '../../server/test/composer-templates.ts';
import type { TenantMember } from '../../server/test/harness.ts';
import type { GraphApi } from '../../server/test/whatsapp-graph.ts';
import { accessibilityViolations, type ConsoleHarness } from './harness.ts';
import { screenshotStates } from './screenshots.ts';
import { inView, startWhatsAppDesk, type WhatsAppDesk } from './whatsapp-desk.ts';

const GROUP = 'conversations-whatsapp-window';
const PHONE_ID = '106540352242939';
const WABA_ID = '102290129340939';
const TOKEN = 'EAAG-window-e2e';
const SECRET = 'meta-app-secret-window-e2e';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let desk: WhatsAppDesk;
let harness: ConsoleHarness;
let graph: GraphApi;
let ana: TenantMember;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  desk = await startWhatsAppDesk({ slug: 'window-desk', number: '+551140000391', phoneId: PHONE_ID, token: TOKEN, secret: SECRET, queue: { name: 'Orders queue' } });
  ({ harness, graph, ana } = desk);
  graph.setTemplates(WABA_ID, { token: TOKEN, phoneNumberIds: [PHONE_ID], templates: composerTemplates });
  await storeTemplates(harness.server.ctx, ana.tenantId, desk.number.id, composerTemplates);
}, 180_000);

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

afterAll(async () => {
  await desk?.close();
});

const customerWrites = (customer: string, name: string, text: string, agoMs = 0) => desk.customerWrites(customer, text, { name, agoMs });
const sentTo = (customer: string) => graph.sent.filter((request) => request.body.to === customer);

/** Ana's console on the Conversations screen, its stream live, the page's clock Playwright's. */
async function openAgent(options: { locale?: string; colorScheme?: 'light' | 'dark'; phone?: boolean } = {}): Promise<Page> {
  const { locale = 'en-US', colorScheme = 'light', phone = false } = options;
  const context = await harness.browser.newContext({
    baseURL: harness.baseUrl,
    locale,
    colorScheme,
    viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    ...(phone && { hasTouch: true, isMobile: true }),
  });
  contexts.push(context);
  const page = await context.newPage();
  // The page's time runs as ever, and a test may move it on: the window's countdown is the page's own.
  await page.clock.install();
  await harness.signIn(page, ana.username, ana.password);
  await page.goto('/conversations');
  await expect.poll(() => page.getByTestId('conversation-feed-status').getAttribute('data-status')).toBe('live');
  return page;
}

const visible = (locator: Locator) => locator.isVisible();

/** Takes the waiting chat of the customer named `name`, from the waiting list. */
async function take(page: Page, name: string): Promise<void> {
  const row = page.getByTestId('conversation-row').filter({ hasText: name });
  await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
  await row.click();
  await page.getByTestId('conversation-take').click();
  // The composer comes once the chat is the agent's.
  await page.getByTestId('conversation-mode').waitFor();
}

/** Mantine's `md`: below it the list and the chat take the screen in turn. */
const TWO_PANES_FROM = 992;

/** Goes back to the list (on a phone) and to the waiting tab. */
async function toWaiting(page: Page): Promise<void> {
  // By the page's width, not by a look at the button: a look can land before a restored layout's render.
  if (page.viewportSize()!.width < TWO_PANES_FROM) await page.getByTestId('conversation-back').click();
  await page.getByTestId('conversation-tab-waiting').click();
}

const windowNotice = (page: Page) => page.getByTestId('conversation-window');

/** Fills the order_shipped template's form: a parcel photo, the name, an amount, a date picked, the tracking code. */
async function fillOrderShipped(page: Page): Promise<void> {
  await page.getByTestId('template-picker').click();
  await page.getByRole('option', { name: 'order_shipped (en_US)' }).click();
  await page.getByTestId('template-field-header.1').fill('https://shop.example.com/parcel.jpg');
  await page.getByTestId('template-field-body.1').fill('Ana');
  // Meta's examples suggested the kinds: an amount, then a date.
  await page.getByTestId('template-field-body.2-amount').fill('120.5');
  await page.getByTestId('template-field-body.3').fill('2026-12-24');
  await page.getByTestId('template-field-button.0').fill('A-123');
}

describe('an agent at a laptop (en)', () => {
  test('inside the window, its last hour counted down live, then outside: a template with its form, sent; the customer’s reply brings back free text', async () => {
    const page = await openAgent();

    // Inside: the customer wrote a minute ago.
    await customerWrites('5511922220001', 'Bruno', 'Hi, where is my order?', MINUTE);
    await take(page, 'Bruno');
    await expect.poll(() => windowNotice(page).innerText()).toMatch(/^Window closes in 23 h 5[89] min$/);
    expect(await windowNotice(page).getAttribute('data-state')).toBe('open');
    expect(await visible(page.getByTestId('conversation-input'))).toBe(true);
    await screenshotStates(page, 'inside-window', { group: GROUP });

    // Its last hour: a warning, counted down by the page's clock, and closed when the clock passes it, without a reload.
    await toWaiting(page);
    await customerWrites('5511922220002', 'Carla', 'Hello?', 23 * HOUR + 50 * MINUTE);
    await take(page, 'Carla');
    await expect.poll(() => windowNotice(page).getAttribute('data-state')).toBe('warning');
    expect(await windowNotice(page).innerText()).toMatch(/^Window closes in (9|10) min: after that, only an approved template can reach the customer\.$/);
    await screenshotStates(page, 'last-hour', { group: GROUP });
    await page.clock.fastForward(11 * MINUTE);
    await expect.poll(() => windowNotice(page).getAttribute('data-state')).toBe('closed');
    expect(await visible(page.getByTestId('template-picker'))).toBe(true);
    expect(await page.getByTestId('conversation-input').count()).toBe(0);
    // (The jump silenced the live feed for a while: it comes back by itself.)
    await expect.poll(() => page.getByTestId('conversation-feed-status').getAttribute('data-status'), { timeout: 30_000 }).toBe('live');

    // Outside: the picker offers the number's approved templates only.
    await page.getByTestId('template-picker').click();
    await expect.poll(() => page.getByRole('option').allInnerTexts()).toEqual(['invoice_ready (en_US)', 'order_shipped (en_US)', 'welcome_video (pt_BR)']);
    await screenshotStates(page, 'outside-picker', { group: GROUP });
    await page.keyboard.press('Escape');
    await fillOrderShipped(page);
    // Meta's examples are the placeholders; the preview reads as the customer will.
    expect(await page.getByTestId('template-field-body.1').getAttribute('placeholder')).toBe('Ana');
    await expect.poll(() => page.getByTestId('template-preview').innerText()).toContain('Hi Ana, your order of BRL 120.50 ships on December 24, 2026.');
    // The form scrolls within itself: its preview and Send are on the screen with the transcript's end.
    await page.getByTestId('template-preview').scrollIntoViewIfNeeded();
    expect(await inView(page, page.getByTestId('template-preview'))).toBe(true);
    expect(await inView(page, page.getByTestId('template-send'))).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshotStates(page, 'template-filled', {
      group: GROUP,
      settle: async (shot) => {
        await shot.getByTestId('template-preview').scrollIntoViewIfNeeded();
        await shot.getByTestId('template-send').scrollIntoViewIfNeeded();
      },
    });
    await page.getByTestId('template-send').click();

    const mark = page.getByTestId('conversation-template-mark');
    await expect.poll(() => mark.innerText()).toBe('Template order_shipped (en_US)');
    expect(await page.getByTestId('conversation-transcript').innerText()).toContain('Hi Ana, your order of BRL 120.50 ships on December 24, 2026.');
    const sent = sentTo('5511922220002').at(-1)!.body as unknown as { type: string; template: { name: string; components: Array<{ type: string; parameters: unknown[] }> } };
    expect(sent.type).toBe('template');
    expect(sent.template.components.find((component) => component.type === 'body')!.parameters).toEqual([
      { type: 'text', text: 'Ana' },
      { type: 'currency', currency: { fallback_value: 'BRL 120.50', code: 'BRL', amount_1000: 120_500 } },
      { type: 'date_time', date_time: { fallback_value: 'December 24, 2026' } },
    ]);
    // Still outside: the form is offered again for another template.
    expect(await visible(page.getByTestId('template-picker'))).toBe(true);

    // The customer answers: the window opens again, and the free-text box with it.
    await customerWrites('5511922220002', 'Carla', 'Thanks!');
    await expect.poll(() => visible(page.getByTestId('conversation-input'))).toBe(true);
    await expect.poll(() => windowNotice(page).innerText()).toMatch(/^Window closes in 2[34] h/);
    await page.getByTestId('conversation-input').fill('You are welcome!');
    await page.getByTestId('conversation-input').press('Enter');
    await expect.poll(() => sentTo('5511922220002').map((request) => request.body.text?.body)).toContain('You are welcome!');
  });
});

describe('an agent on a phone (pt, 390x844)', () => {
  test('the window’s states in Portuguese, each in view', async () => {
    const page = await openAgent({ locale: 'pt-BR', colorScheme: 'dark', phone: true });
    await customerWrites('5511922220003', 'Daniela', 'Oi', 2 * MINUTE);
    await take(page, 'Daniela');
    await expect.poll(() => windowNotice(page).innerText()).toMatch(/^A janela fecha em 23 h e 5[67] min$/);
    expect(await inView(page, windowNotice(page))).toBe(true);
    expect(await inView(page, page.getByTestId('conversation-input'))).toBe(true);
    await screenshotStates(page, 'inside-window', { group: GROUP });

    await toWaiting(page);
    await customerWrites('5511922220004', 'Eduardo', 'Olá', 23 * HOUR + 20 * MINUTE);
    await take(page, 'Eduardo');
    await expect.poll(() => windowNotice(page).innerText()).toMatch(/^A janela fecha em (39|40) min: depois disso, só um modelo aprovado chega ao cliente\.$/);
    expect(await inView(page, windowNotice(page))).toBe(true);
    await screenshotStates(page, 'last-hour', { group: GROUP });

    await toWaiting(page);
    await customerWrites('5511922220005', 'Fernanda', 'Oi de novo', 26 * HOUR);
    await take(page, 'Fernanda');
    await expect.poll(() => windowNotice(page).innerText()).toBe('A janela de 24 horas do cliente está fechada: o WhatsApp só aceita um modelo aprovado até ele escrever de novo.');
    expect(await page.getByTestId('conversation-mode').innerText()).toContain('Enviar um modelo');
    await expect.poll(() => inView(page, page.getByTestId('template-picker'))).toBe(true);
    await page.getByTestId('template-picker').click();
    await expect.poll(() => page.getByRole('option').count()).toBe(3);
    await screenshotStates(page, 'outside-picker', { group: GROUP });
    await page.keyboard.press('Escape');
    await fillOrderShipped(page);
    await expect.poll(() => page.getByTestId('template-preview').innerText()).toContain('Hi Ana, your order of BRL 120.50 ships on');
    // On a phone the agent scrolls down to Send, the preview just above it.
    const toSend = async (shot: Page) => {
      await shot.getByTestId('template-preview').scrollIntoViewIfNeeded();
      await shot.getByTestId('template-send').evaluate((element) => element.scrollIntoView({ block: 'center' }));
    };
    await toSend(page);
    expect(await inView(page, page.getByTestId('template-send'))).toBe(true);
    expect(await visible(page.getByTestId('template-preview'))).toBe(true);
    await screenshotStates(page, 'template-filled', { group: GROUP, settle: toSend });
  });
});
