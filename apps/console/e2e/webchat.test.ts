/**
 * The web chat widget in Chromium, on pages of another origin than the server's (a second local
 * HTTP server, reached as localhost where the server is 127.0.0.1): a whole menu with a reload in
 * the middle, keyboard use, Portuguese and dark, accessibility, a page whose origin the number does
 * not allow, and the size of the script.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Destination, PhoneNumber } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { readFixture, storePlan } from '../../server/test/sessions-helpers.ts';
import { conversationRows, handoffPlan, openConversations } from './chat-handoff.ts';
import { screenshotStates } from './screenshots.ts';
import { accessibilityViolations, chooseOption, type ConsoleHarness, createNumber, rowWith, searchTable, startConsole } from './harness.ts';

/** The widget's budget (issue 16): what a page downloads for it, gzip. */
const WIDGET_TARGET_KB = 30;
const webchatRoot = path.resolve(import.meta.dirname, '../../webchat');

let harness: ConsoleHarness;
let widgetDir: string;
let site: http.Server;
let sitePort: number;
let number: PhoneNumber;
/** A web chat by name that asks the visitor's name and e-mail first, and hands the chat to a queue. */
let asking: PhoneNumber;
let member: TenantMember;

/** The site's page: the tag copied from the numbers screen, the page's own language. */
function pageHtml(lang: string, tagExtra: string, key = number.webchat_key): string {
  // The server's PUBLIC_URL is not where this test's server listens: the tag is the copied one's, on that address.
  const tag = `<script src="${harness.baseUrl}/widget.js" data-key="${key}" ${tagExtra} async></script>`;
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Shop</h1><p>Our products.</p></main>${tag}</body></html>`;
}

/** A page of the site: allowed as http://localhost:<port>, refused as http://127.0.0.1:<port>. */
async function openSite(options: { host?: string; path?: string; locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
  const { page } = await harness.newPage({ locale: options.locale ?? 'en-US', colorScheme: options.colorScheme ?? 'light' });
  await page.goto(`http://${options.host ?? 'localhost'}:${sitePort}${options.path ?? '/'}`);
  return page;
}

const countSessions = async () => Number((await harness.server.ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  widgetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-widget-'));
  await build({ root: webchatRoot, configFile: path.join(webchatRoot, 'vite.config.ts'), logLevel: 'silent', build: { outDir: widgetDir } });
  // Every test's visitor is 127.0.0.1: the cap of open chats per address (5 by default) is not what this file tests.
  harness = await startConsole({ WEBCHAT_DIR: widgetDir, WEBCHAT_MAX_OPEN_PER_ADDRESS: '1000' });
  site = http.createServer((request, response) => {
    const pages: Record<string, () => string> = {
      '/pt': () => pageHtml('pt-BR', 'data-theme="dark"'),
      '/pt-auto': () => pageHtml('pt-BR', ''),
      '/help': () => pageHtml('en', '', asking.webchat_key),
      '/ajuda': () => pageHtml('pt-BR', '', asking.webchat_key),
    };
    const html = (pages[request.url ?? ''] ?? (() => pageHtml('en', '')))();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as AddressInfo).port;

  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'webchatsite');
  const plan = await storePlan(harness.server.ctx, member.tenantId, readFixture('help-desk-chat'));
  number = await createNumber(harness.server, member.token, { number: '+551140000001', provider: 'webchat', chat_plan_id: plan, webchat_origins: [`http://localhost:${sitePort}`] });
  expect(number.webchat_script).toBe(`<script src="${harness.server.config.publicUrl}/widget.js" data-key="${number.webchat_key}" async></script>`);
  const queue = (await harness.server.call({ method: 'POST', url: '/destinations', token: member.token, payload: { name: 'Shop support', kind: 'chat', chat_target: 'queue', agent_ids: [member.userId] } })).json<Destination>();
  const handoff = await storePlan(harness.server.ctx, member.tenantId, handoffPlan(queue.id));
  asking = await createNumber(harness.server, member.token, { number: 'Shop help', provider: 'webchat', chat_plan_id: handoff, webchat_origins: [`http://localhost:${sitePort}`], webchat_prechat: ['name', 'email'] });
});

afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => site?.close(resolve));
  fs.rmSync(widgetDir, { recursive: true, force: true });
});

const log = (page: Page) => page.getByRole('log');
const shots = { group: 'webchat' };

/** Whether the element is wholly inside the page's viewport: seen without scrolling. */
async function isInView(page: Page, locator: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  return box !== null && viewport !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height;
}
const transcript = (page: Page) => log(page).locator('.msg').allTextContents();

describe('the web chat widget on another site', () => {
  test('a whole menu, with a reload in the middle', async () => {
    const page = await openSite();
    const launcher = page.getByRole('button', { name: 'Open chat' });
    await launcher.click();
    await expect.poll(() => transcript(page)).toEqual(['Assistant: How can we help?']);
    await expect.poll(() => page.getByRole('group', { name: 'Choose an option' }).getByRole('button').allInnerTexts()).toEqual(['Sales', 'Support']);

    // The typing indicator shows while the plan works on the message.
    await page.route('**/messages', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Sales' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toBe('Typing…');
    await expect.poll(() => transcript(page)).toEqual(['Assistant: How can we help?', 'You: Sales', 'Assistant: Are you already a customer?']);
    await expect.poll(() => page.getByRole('status').innerText()).toBe('');

    // A reload: the same conversation, open, with the buttons of the menu it waits on.
    await page.reload();
    await expect.poll(() => transcript(page)).toEqual(['Assistant: How can we help?', 'You: Sales', 'Assistant: Are you already a customer?']);
    await page.getByRole('button', { name: 'Not yet' }).click();
    await expect
      .poll(() => transcript(page))
      .toEqual(['Assistant: How can we help?', 'You: Sales', 'Assistant: Are you already a customer?', 'You: Not yet', 'Assistant: Welcome! A seller will show you our plans.', 'Assistant: Thanks for writing.']);
    await expect.poll(() => page.getByText('This conversation has ended.').isVisible()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Your message' }).isDisabled()).toBe(true);
    const report = await harness.server.ctx.db.selectFrom('call_reports').select(['provider', 'disposition']).where('provider', '=', 'webchat').executeTakeFirstOrThrow();
    expect(report.provider).toBe('webchat');

    // A new conversation starts afresh.
    await page.getByRole('button', { name: 'Start a new conversation' }).click();
    await expect.poll(() => transcript(page)).toEqual(['Assistant: How can we help?']);
  });

  for (const { path: sitePath, locale, words } of [
    { path: '/', locale: 'en-US', words: { open: 'Open chat', ended: 'This conversation has ended.', restart: 'Start a new conversation', message: 'Your message' } },
    { path: '/pt-auto', locale: 'pt-BR', words: { open: 'Abrir chat', ended: 'Esta conversa foi encerrada.', restart: 'Iniciar uma nova conversa', message: 'Sua mensagem' } },
  ]) {
    test(`at 390 px (${locale}): "the conversation has ended" and its new start stay hidden until it ends, then show in view`, async () => {
      const page = await openSite({ path: sitePath, locale });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: words.open }).click();
      await expect.poll(() => transcript(page)).toHaveLength(1);
      const ended = page.getByText(words.ended);
      const restart = page.getByRole('button', { name: words.restart });
      // Issue 36: both showed beside the plan's first message, and a press left an orphan chat waiting.
      expect(await ended.isHidden()).toBe(true);
      expect(await restart.isHidden()).toBe(true);
      expect(await isInView(page, page.getByRole('textbox', { name: words.message }))).toBe(true);
      await screenshotStates(page, 'initial', shots);

      const input = page.getByRole('textbox', { name: words.message });
      await input.fill('support');
      await input.press('Enter');
      await expect.poll(() => ended.isVisible()).toBe(true);
      expect(await restart.isVisible()).toBe(true);
      expect(await isInView(page, restart)).toBe(true);
      await screenshotStates(page, 'ended', shots);
    });
  }

  test('the message field is at least 16 px, so that phones do not zoom the page when it takes the focus', async () => {
    const page = await openSite();
    await page.getByRole('button', { name: 'Open chat' }).click();
    const field = page.getByRole('textbox', { name: 'Your message' });
    await field.waitFor();
    expect(parseFloat(await field.evaluate((element) => getComputedStyle(element).fontSize))).toBeGreaterThanOrEqual(16);
  });

  test('by keyboard: typed answers, Escape closes and gives the focus back', async () => {
    const page = await openSite();
    await page.getByRole('button', { name: 'Open chat' }).focus();
    await page.keyboard.press('Enter');
    const input = page.getByRole('textbox', { name: 'Your message' });
    await expect.poll(() => input.evaluate((element) => element === (element.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await expect.poll(() => transcript(page)).toEqual(['Assistant: How can we help?']);
    await input.fill('support');
    await input.press('Enter');
    await expect.poll(() => transcript(page)).toContain('Assistant: Support is on its way.');
    // The chat ended and its field was disabled: the focus waits on the offer of a new one, not lost to the page.
    const restart = page.getByRole('button', { name: 'Start a new conversation' });
    await expect.poll(() => restart.evaluate((element) => element === (element.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    const launcher = page.getByRole('button', { name: 'Open chat' });
    expect(await launcher.getAttribute('aria-expanded')).toBe('false');
    expect(await launcher.evaluate((element) => element === (element.getRootNode() as ShadowRoot).activeElement)).toBe(true);
  });

  test('in Portuguese and dark, from the page, and accessible in both looks', async () => {
    const page = await openSite({ path: '/pt', locale: 'pt-BR' });
    await page.getByRole('button', { name: 'Abrir chat' }).click();
    await expect.poll(() => transcript(page)).toEqual(['Atendente: How can we help?']);
    const background = await page.getByRole('dialog', { name: 'Chat' }).evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(background).toBe('rgb(26, 27, 30)');
    expect(await page.getByRole('textbox', { name: 'Sua mensagem' }).getAttribute('placeholder')).toBe('Digite sua mensagem…');
    expect(await accessibilityViolations(page)).toEqual([]);

    const light = await openSite();
    await light.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => transcript(light)).toHaveLength(1);
    expect(await light.getByRole('dialog', { name: 'Chat' }).evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(255, 255, 255)');
    expect(await accessibilityViolations(light)).toEqual([]);
  });

  test('a page of an origin the number does not allow is told the chat is not available there, and starts nothing', async () => {
    const before = await countSessions();
    const page = await openSite({ host: '127.0.0.1' });
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('This chat is not available on this page.');
    expect(await transcript(page)).toEqual([]);
    expect(await countSessions()).toBe(before);
  });
});

describe('who the visitor is', () => {
  test('the number asks name and e-mail first; two waiting chats are then told apart by name, in en and pt', async () => {
    // The agent is online (the Conversations screen's stream is open), so the chats wait for them.
    const agent = await openConversations(harness, member);
    const visitors = [
      { path: '/help', locale: 'en-US', name: 'Ana Souza', email: 'ana@example.com', w: { open: 'Open chat', intro: 'Before we start, tell us who you are.', name: 'Your name', email: 'Your e-mail', start: 'Start chat', invalid: 'Fill in each field; an e-mail reads as name@example.com.', message: 'Your message' } },
      { path: '/ajuda', locale: 'pt-BR', name: 'Bruno Lima', email: 'bruno@example.com', w: { open: 'Abrir chat', intro: 'Antes de começar, diga-nos quem você é.', name: 'Seu nome', email: 'Seu e-mail', start: 'Iniciar conversa', invalid: 'Preencha cada campo; um e-mail tem a forma nome@exemplo.com.', message: 'Sua mensagem' } },
    ];
    for (const visitor of visitors) {
      const before = await countSessions();
      const page = await openSite({ path: visitor.path, locale: visitor.locale });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: visitor.w.open }).click();
      const intro = page.getByText(visitor.w.intro);
      await expect.poll(() => intro.isVisible()).toBe(true);
      // The form takes the conversation's place: no message box yet, and nothing started.
      expect(await page.getByRole('textbox', { name: visitor.w.message }).isHidden()).toBe(true);
      const start = page.getByRole('button', { name: visitor.w.start });
      expect(await isInView(page, start)).toBe(true);
      expect(await countSessions()).toBe(before);
      await screenshotStates(page, 'prechat', shots);

      await page.getByRole('textbox', { name: visitor.w.name }).fill(visitor.name);
      await page.getByRole('textbox', { name: visitor.w.email }).fill('not an address');
      await start.click();
      await expect.poll(() => page.getByRole('alert').innerText()).toBe(visitor.w.invalid);
      expect(await countSessions()).toBe(before);
      await page.getByRole('textbox', { name: visitor.w.email }).fill(visitor.email);
      await start.click();

      // Waiting for a person: the plan said so, and the queue tells the place (in the session's
      // language, the tenant's English); the form is gone, the message box is there and in view.
      const assistant = visitor.locale === 'pt-BR' ? 'Atendente' : 'Assistant';
      const place = visitor.locale === 'pt-BR' ? 'you are number 2 in the queue.' : 'you are next in the queue.';
      await expect
        .poll(() => transcript(page))
        .toEqual([`${assistant}: Hello! Let me find someone for you.`, expect.stringMatching(new RegExp(`^${assistant}: A person will be with you shortly: ${place.replace(/\./g, '\\.')}`))]);
      expect(await intro.isHidden()).toBe(true);
      expect(await isInView(page, page.getByRole('textbox', { name: visitor.w.message }))).toBe(true);
      await screenshotStates(page, 'waiting', shots);
    }

    // The agent tells the two chats apart by name (issue 36: both were "Unknown customer").
    await expect.poll(() => conversationRows(agent).allInnerTexts()).toHaveLength(2);
    const rows = await conversationRows(agent).allInnerTexts();
    expect(rows.map((row) => row.split('\n')[0]).sort()).toEqual(['Ana Souza', 'Bruno Lima']);
    await conversationRows(agent).filter({ hasText: 'Ana Souza' }).click();
    await expect.poll(() => agent.getByTestId('conversation-title').innerText()).toBe('Ana Souza');
    const view = agent.getByTestId('conversation-view');
    expect(await view.getByText('ana@example.com').isVisible()).toBe(true);
    expect(await view.getByText(`http://localhost:${sitePort}/help`).isVisible()).toBe(true);
  });
});

describe('the numbers screen', () => {
  for (const { locale, w } of [
    { locale: 'en-US', w: { created: 'Web chat created. Copy the tag below into your site\'s pages.', origin: 'Enter an origin as scheme://host[:port], without a path (https://shop.example.com)' } },
    { locale: 'pt-BR', w: { created: 'Chat web criado. Copie a tag abaixo para as páginas do seu site.', origin: 'Informe uma origem como esquema://host[:porta], sem caminho (https://loja.exemplo.com.br)' } },
  ]) {
    test(`a web chat number (${locale}): a name, not a phone number; its tag shown right after it is saved`, async () => {
      const name = `Store chat ${locale}`;
      const { page } = await harness.newPage({ locale });
      await harness.signIn(page, member.username, member.password);
      await page.goto('/numbers');
      await page.getByTestId('number-new').click();
      expect(await page.getByTestId('number-webchat').count()).toBe(0);
      await chooseOption(page, 'number-provider', locale === 'pt-BR' ? 'Chat na web' : 'Web chat');
      await expect.poll(() => page.getByTestId('number-webchat-pending').isVisible()).toBe(true);
      const origins = page.getByTestId('number-webchat-origins');
      await origins.fill('https://Store.example.com');
      await origins.press('Enter');
      await origins.fill('https://store.example.com/shop');
      await origins.press('Enter');
      // No name, a wrong origin: both said at once.
      await page.getByTestId('number-save').click();
      await expect.poll(() => page.getByText(w.origin).isVisible()).toBe(true);
      expect(await page.getByTestId('number-number').getAttribute('aria-invalid')).toBe('true');
      await origins.press('Backspace');
      // A name too long for one is refused as such.
      await page.getByTestId('number-number').fill('x'.repeat(61));
      expect((await page.getByTestId('number-number').inputValue()).length).toBe(60);
      await page.getByTestId('number-number').fill(name);
      await page.getByTestId('number-webchat-prechat-name').click();
      await page.getByTestId('number-save').click();

      // Issue 36: the tag showed only when the number was opened again. Now the form stays open on it.
      await expect.poll(() => page.getByTestId('number-webchat-created').isVisible()).toBe(true);
      const saved = (await harness.server.call({ method: 'GET', url: '/numbers', token: member.token })).json<PhoneNumber[]>().find((row) => row.number === name)!;
      expect(saved).toMatchObject({ provider: 'webchat', webchat_origins: ['https://store.example.com'], webchat_prechat: ['name'] });
      expect(await page.getByTestId('number-webchat-script').isVisible()).toBe(true);
      await expect.poll(() => isInView(page, page.getByTestId('number-webchat-script'))).toBe(true);
      expect(await page.getByTestId('number-webchat-script').inputValue()).toBe(saved.webchat_script);
      expect(await page.getByTestId('number-webchat-key').inputValue()).toBe(saved.webchat_key);
      await page.getByTestId('number-webchat-script-copy').click();
      await expect.poll(() => page.getByRole('button', { name: locale === 'pt-BR' ? 'Copiado' : 'Copied' }).count()).toBe(1);

      // The identity key: made on demand, shown whole this once, masked after.
      expect(await page.getByTestId('number-webchat-identity-none').isVisible()).toBe(true);
      await page.getByTestId('number-webchat-identity-make').click();
      await expect.poll(() => page.getByTestId('number-webchat-identity-once').isVisible()).toBe(true);
      expect(await page.getByTestId('number-webchat-identity-key').inputValue()).toMatch(/^wcid_/);
      await screenshotStates(page, 'number-webchat-saved', shots);
      expect(await accessibilityViolations(page)).toEqual([]);

      await page.keyboard.press('Escape');
      await searchTable(page, name, 1);
      expect(await rowWith(page, name).isVisible()).toBe(true);
      await rowWith(page, name).getByTestId('number-edit').click();
      await expect.poll(() => page.getByTestId('number-webchat-identity-key').inputValue()).toMatch(/^•+/);
      expect(await page.getByTestId('number-webchat-created').count()).toBe(0);
    });
  }
});

describe('the widget’s script', () => {
  test(`stays within ${WIDGET_TARGET_KB} KB gzip and holds none of the console`, () => {
    const script = fs.readFileSync(path.join(widgetDir, 'widget.js'));
    expect(gzipSync(script).length / 1024).toBeLessThanOrEqual(WIDGET_TARGET_KB);
    expect(fs.readdirSync(widgetDir)).toEqual(['widget.js']);
    expect(script.toString()).not.toMatch(/react|mantine/i);
  });
});
