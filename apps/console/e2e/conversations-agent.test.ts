/**
 * The agent's day (issue 36, docs/conversations.md) in Chromium, with WhatsApp customers through the
 * local Graph API (no widget to build): a new chat is noticed (the tab's title counts it, the chime
 * plays once the page allowed sound, the burger's badge at 390 px); after Take the cursor is in the
 * message box; `/` picks a saved reply; a private note stays in the console; a resolve by its key
 * is undone, then done, and the customer gets the queue's closing message; at 390x844 the message
 * box and the typing line are in view, the transcript stays at the newest, and no key is named on a
 * touch screen; the agent is told when the customer's WhatsApp window is over; an administrator
 * over every tenant sees no presence switch. Screenshots of each
 * state in en and pt, light and dark, at 1280 and 390 px.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { TenantMember } from '../../server/test/harness.ts';
import { sweepCustomersGone } from '../../server/src/modules/conversations/customer-left.ts';
import type { GraphApi } from '../../server/test/whatsapp-graph.ts';
import { accessibilityViolations, type ConsoleHarness, isFocused } from './harness.ts';
import { screenshotStates } from './screenshots.ts';
import { inView, startWhatsAppDesk, type WhatsAppDesk } from './whatsapp-desk.ts';

const GROUP = 'conversations-agent';
const PHONE_ID = '106540352242936';
const SECRET = 'meta-app-secret-agent';
const CLOSING = 'Thanks for writing to the shop!';

let desk: WhatsAppDesk;
let harness: ConsoleHarness;
let graph: GraphApi;
let ana: TenantMember;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  desk = await startWhatsAppDesk({ slug: 'desk', number: '+551140000361', phoneId: PHONE_ID, token: 'EAAG-agent', secret: SECRET, queue: { name: 'Sales queue', closing_message_en: CLOSING } });
  ({ harness, graph, ana } = desk);
  const call = (method: 'POST', url: string, payload: object) => harness.server.call({ method, url, token: ana.token, payload });
  expect((await call('POST', '/saved-replies', { name: 'Greeting', text: 'Hello {{name}}, how can I help?' })).statusCode).toBe(201);
  expect((await call('POST', '/saved-replies', { name: 'Goodbye', text: 'Thank you, {{name}}! Have a nice day.' })).statusCode).toBe(201);
}, 180_000);

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

afterAll(async () => {
  await desk?.close();
});

/** A customer's WhatsApp text, as Meta delivers it; no profile, so their name is not known. */
const customerWrites = (customer: string, text: string) => desk.customerWrites(customer, text);
const receivedBy = (customer: string) => graph.sent.filter((request) => request.body.to === customer).map((request) => request.body.text?.body);

/** Ana's console on the Conversations screen, its stream live; `touch`: a phone (390x844, a finger for a pointer). */
async function openAgent(options: { locale?: string; colorScheme?: 'light' | 'dark'; touch?: boolean } = {}): Promise<Page> {
  const { locale = 'en-US', colorScheme = 'light', touch = false } = options;
  const context = await harness.browser.newContext({
    baseURL: harness.baseUrl,
    locale,
    colorScheme,
    viewport: touch ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    ...(touch && { hasTouch: true, isMobile: true }),
  });
  contexts.push(context);
  // Counts the chime's tones: what a person hears, where a test cannot listen.
  await context.addInitScript(() => {
    const original = AudioContext.prototype.createOscillator;
    AudioContext.prototype.createOscillator = function (this: AudioContext) {
      (window as unknown as { tones: number }).tones = ((window as unknown as { tones?: number }).tones ?? 0) + 1;
      return original.call(this);
    };
  });
  const page = await context.newPage();
  await harness.signIn(page, ana.username, ana.password);
  await page.goto('/conversations');
  await expect.poll(() => page.getByTestId('conversation-feed-status').getAttribute('data-status')).toBe('live');
  return page;
}

const visible = (locator: Locator) => locator.isVisible();
const tones = (page: Page) => page.evaluate(() => (window as unknown as { tones?: number }).tones ?? 0);

/** Opens the only waiting chat and takes it. */
async function takeFirst(page: Page): Promise<void> {
  await expect.poll(() => page.getByTestId('conversation-row').count()).toBe(1);
  await page.getByTestId('conversation-row').first().click();
  await page.getByTestId('conversation-take').click();
  await page.getByTestId('conversation-input').waitFor();
}

describe('an agent at a laptop', () => {
  test('a new chat: the title counts it, the chime plays once the page was clicked; Take puts the cursor in the box; / picks a saved reply; a note stays private', async () => {
    const agent = await openAgent();
    // No click yet: the browser holds sound back, and the screen says so.
    await expect.poll(() => visible(agent.getByTestId('conversation-sound-blocked'))).toBe(true);
    expect(await agent.getByTestId('conversation-sound').isChecked()).toBe(true);
    expect(await visible(agent.getByTestId('conversation-notifications'))).toBe(true);
    await screenshotStates(agent, 'alerts-offered', { group: GROUP, widths: [1280] });
    await agent.getByRole('heading', { name: 'Conversations' }).click();
    await expect.poll(() => visible(agent.getByTestId('conversation-sound-blocked'))).toBe(false);
    expect(await agent.title()).toBe('Voxplan');

    await customerWrites('5511911110001', 'Hi');
    await expect.poll(() => agent.title()).toBe('(1) Voxplan');
    // Two tones: the chime.
    await expect.poll(() => tones(agent)).toBe(2);

    await takeFirst(agent);
    const input = agent.getByTestId('conversation-input');
    await expect.poll(() => isFocused(input)).toBe(true);
    await expect.poll(() => agent.title()).toBe('Voxplan');

    // "/" offers the saved replies; the customer's name is not known: the greeting reads without it.
    await input.pressSequentially('/go');
    await expect.poll(() => visible(agent.getByTestId('saved-reply-picker'))).toBe(true);
    // The replies are read when the picker first opens.
    await expect.poll(() => agent.getByTestId('saved-reply-option').allInnerTexts()).toEqual(['Goodbye\nThank you, {{name}}! Have a nice day.']);
    await input.fill('/');
    await input.pressSequentially('gr');
    await expect.poll(() => agent.getByTestId('saved-reply-option').count()).toBe(1);
    await input.press('Enter');
    expect(await input.inputValue()).toBe('Hello, how can I help?');
    expect(await visible(agent.getByTestId('saved-reply-picker'))).toBe(false);
    await input.press('Enter');
    await expect.poll(() => receivedBy('5511911110001')).toContain('Hello, how can I help?');

    // A private note: shown apart in the transcript, never sent to the customer.
    await agent.getByTestId('conversation-mode').getByText('Private note').click();
    await input.fill('VIP: offer free shipping');
    await input.press('Enter');
    await expect.poll(() => agent.getByTestId('conversation-note').innerText()).toContain('VIP: offer free shipping');
    expect(await agent.getByTestId('conversation-note').innerText()).toContain(`Private note · ${ana.username}`);
    expect(receivedBy('5511911110001')).not.toContain('VIP: offer free shipping');
    await agent.getByTestId('conversation-mode').getByText('Reply').click();
    await input.fill('/');
    await expect.poll(() => agent.getByTestId('saved-reply-option').count()).toBe(2);
    await screenshotStates(agent, 'note-and-picker', { group: GROUP });

    // Alt+X resolves after a few seconds, with Undo: undone, the chat stays the agent's.
    await input.fill('');
    await input.press('Alt+X');
    await expect.poll(() => visible(agent.getByTestId('conversation-undo-toast'))).toBe(true);
    await screenshotStates(agent, 'undo-resolve', { group: GROUP });
    await agent.getByTestId('conversation-undo').click();
    await expect.poll(() => visible(agent.getByTestId('conversation-undo-toast'))).toBe(false);
    expect(await isFocused(input)).toBe(true);
    // The window itself is what is tested: past it, nothing was closed.
    await agent.waitForTimeout(5500);
    expect(await agent.getByTestId('conversation-status').textContent()).toBe('Open');
    expect(receivedBy('5511911110001')).not.toContain(CLOSING);

    // Not undone: the chat closes and the customer reads the queue's closing message.
    await input.press('Alt+X');
    await expect.poll(() => agent.getByTestId('conversation-status').textContent(), { timeout: 10_000 }).toBe('Closed');
    await expect.poll(() => receivedBy('5511911110001')).toContain(CLOSING);
    expect(await agent.getByTestId('conversation-transcript').innerText()).toContain(CLOSING);
  });

  test('the saved replies dialog: a user adds one and it is offered at once; Portuguese and dark', async () => {
    const agent = await openAgent({ locale: 'pt-BR', colorScheme: 'dark' });
    await agent.getByTestId('saved-replies-open').click();
    await expect.poll(() => agent.getByTestId('saved-reply-row').count()).toBe(2);
    await agent.getByTestId('saved-reply-name').fill('Prazo');
    await agent.getByTestId('saved-reply-text').fill('{{name}}, o prazo é de 3 dias úteis.');
    await agent.getByTestId('saved-reply-save').click();
    await expect.poll(() => agent.getByTestId('saved-reply-row').count()).toBe(3);
    await screenshotStates(agent, 'saved-replies-dialog', { group: GROUP });
    await agent.keyboard.press('Escape');
    await expect.poll(() => visible(agent.getByTestId('saved-reply-name'))).toBe(false);

    await customerWrites('5511911110002', 'Oi');
    await takeFirst(agent);
    const input = agent.getByTestId('conversation-input');
    await input.pressSequentially('/prazo');
    await input.press('Enter');
    expect(await input.inputValue()).toBe('O prazo é de 3 dias úteis.');
    await agent.getByTestId('conversation-mode').getByText('Nota privada').click();
    await input.fill('Cliente pediu reembolso');
    await input.press('Enter');
    await expect.poll(() => agent.getByTestId('conversation-note').count()).toBe(1);
    // A day later the customer's WhatsApp window is over: the chat sweep tells the agent, in their words.
    await sweepCustomersGone(harness.server.ctx, new Date(Date.now() + 25 * 3600_000));
    await expect.poll(() => agent.getByTestId('conversation-system').innerText()).toBe(
      'A janela do WhatsApp do cliente terminou: passaram 24 horas desde a última mensagem dele, e o WhatsApp só aceita um modelo aprovado de você até que ele escreva de novo.',
    );
    await agent.getByTestId('conversation-mode').getByText('Resposta').click();
    await input.fill('/');
    await expect.poll(() => agent.getByTestId('saved-reply-option').count()).toBe(3);
    // Once the saved reply's toast is gone: axe would read its fading text as faint.
    await expect.poll(() => agent.locator('.mantine-Notification-root').count()).toBe(0);
    expect(await accessibilityViolations(agent)).toEqual([]);
    await screenshotStates(agent, 'note-and-picker', { group: GROUP });
    await input.fill('');
    await input.press('Alt+X');
    await expect.poll(() => visible(agent.getByTestId('conversation-undo-toast'))).toBe(true);
    await screenshotStates(agent, 'undo-resolve', { group: GROUP });
    await agent.getByTestId('conversation-undo').click();
    await agent.getByTestId('conversation-close').click();
    await agent.getByTestId('close-resolved').click();
    await expect.poll(() => agent.getByTestId('conversation-status').textContent()).toBe('Encerrada');
  });
});

describe('an agent on a phone (390x844, touch)', () => {
  test('the burger counts the new chat; the message box and the typing line are in view; the transcript stays at the newest; no keys named', async () => {
    const agent = await openAgent({ touch: true });
    await customerWrites('5511911110003', 'Hello from my phone');
    const badge = agent.getByTestId('menu-burger-count').locator('.mantine-Indicator-indicator');
    await expect.poll(() => badge.innerText()).toBe('1');
    expect(await inView(agent, badge)).toBe(true);
    expect(await agent.getByTestId('menu-burger').getAttribute('aria-label')).toBe('Main menu: 1 chat waiting or unread');
    expect(await agent.title()).toBe('(1) Voxplan');
    // A finger has no keyboard: no list of keys to open.
    expect(await agent.getByTestId('conversation-help').count()).toBe(0);

    await takeFirst(agent);
    await expect.poll(() => visible(badge)).toBe(false);
    // The chat has the screen: the list waits behind the back button.
    expect(await agent.getByTestId('conversation-row').count()).toBe(0);
    expect(await visible(agent.getByTestId('conversation-back'))).toBe(true);
    for (let turn = 1; turn <= 12; turn++) await customerWrites('5511911110003', `Message number ${turn} with a few words to fill the line`);
    const lastMessage = agent.getByTestId('conversation-message').filter({ hasText: 'Message number 12 ' });
    await expect.poll(() => lastMessage.count()).toBe(1);
    const input = agent.getByTestId('conversation-input');
    await expect.poll(() => inView(agent, input)).toBe(true);
    expect(await inView(agent, agent.getByTestId('conversation-customer-typing'))).toBe(true);
    // The newest is in view in the transcript without the agent scrolling.
    await expect.poll(() => inView(agent, lastMessage)).toBe(true);
    expect(await agent.evaluate(() => window.scrollY)).toBe(0);

    // Scrolled up to read: a new message leaves the reading where it is.
    const transcript = agent.getByTestId('conversation-transcript');
    await transcript.evaluate((element) => (element.scrollTop = 0));
    await customerWrites('5511911110003', 'One more');
    await expect.poll(() => agent.getByTestId('conversation-message').filter({ hasText: 'One more' }).count()).toBe(1);
    expect(await transcript.evaluate((element) => element.scrollTop)).toBe(0);

    // No tooltip names a key on a touch screen.
    await agent.getByTestId('conversation-close').click();
    expect(await agent.getByTestId('close-resolved').innerText()).toBe('Resolved (end the chat)');
    await agent.keyboard.press('Escape');
    await screenshotStates(agent, 'phone-chat', { group: GROUP, widths: [390] });
  });
});

describe('an administrator over every tenant', () => {
  test('sees no online/away switch (the server would refuse it), and asks no presence', async () => {
    const context = await harness.browser.newContext({ baseURL: harness.baseUrl, viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api/v1/agents/me') && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    });
    await harness.signIn(page);
    await page.goto('/conversations');
    await expect.poll(() => visible(page.getByTestId('conversation-tab-waiting'))).toBe(true);
    expect(await page.getByTestId('agent-presence').count()).toBe(0);
    expect(await page.getByTestId('conversation-sound').count()).toBe(0);
    expect(refused).toEqual([]);
  });
});
