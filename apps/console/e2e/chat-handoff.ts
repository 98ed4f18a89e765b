/**
 * The pieces of the conversations tests (issue 30, docs/conversations.md) in Chromium: the web chat
 * widget on a third-party shop's page for the visitor, the Conversations screen for the agent, and
 * the plan that hands the chat to a queue.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { expect } from 'vitest';
import { planEdge, planNode } from '../../server/test/sessions-helpers.ts';
import type { ConsoleBrowser } from './harness.ts';

const webchatRoot = path.resolve(import.meta.dirname, '../../webchat');

/** The plan: a greeting, the hand-off to the queue, and what the plan says when the chat comes back or no one is there. */
export function handoffPlan(queueId: number) {
  return {
    name: 'Shop chat',
    version: 1,
    format_version: 1,
    settings: { session_timeout_min: 10, chat_text: 'Closing this idle chat.', sync_with_voice_text: false, webhook: '' },
    nodes: [
      planNode('start', 'start', { hangup_chat_message: 'Thanks for writing.' }),
      planNode('hello', 'play_message', { voice_text: 'Hello.', chat_text: 'Hello! Let me find someone for you.' }),
      planNode('queue', 'destination', { destination_id: queueId, timeout_s: 600 }),
      planNode('back', 'play_message', { voice_text: 'Back.', chat_text: 'The plan again: anything else?' }),
      planNode('busy', 'play_message', { voice_text: 'Busy.', chat_text: 'Everyone is away; write to us later.' }),
      planNode('unanswered', 'play_message', { voice_text: 'Unanswered.', chat_text: 'Nobody could answer in time; we will write back.' }),
    ],
    edges: [
      planEdge('start', 'next', 'hello'),
      planEdge('hello', 'next', 'queue'),
      planEdge('queue', 'answer', 'back'),
      planEdge('queue', 'busy', 'busy'),
      planEdge('queue', 'no_answer', 'unanswered'),
    ],
  };
}

/** The widget built for production into a temporary directory, for a server's WEBCHAT_DIR. */
export async function buildWidget(): Promise<{ dir: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-widget-'));
  await build({ root: webchatRoot, configFile: path.join(webchatRoot, 'vite.config.ts'), logLevel: 'silent', build: { outDir: dir } });
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface ShopSite {
  /** What the web chat numbers list in their webchat_origins. */
  origin: string;
  close(): Promise<void>;
}

/**
 * A third-party shop's site whose pages carry the widget's tag: `widgetFor` answers, for a page's
 * path, the server that serves widget.js (and that the widget then talks to) and the number's key.
 */
export async function startShopSite(widgetFor: (pagePath: string | undefined) => { serverUrl: string; key: string; lang?: string }): Promise<ShopSite> {
  const site = http.createServer((request, response) => {
    // The page's language is the widget's (its <html lang>): a Portuguese shop's page chats in Portuguese.
    const { serverUrl, key, lang = 'en' } = widgetFor(request.url);
    const tag = `<script src="${serverUrl}/widget.js" data-key="${key}" async></script>`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Shop</h1></main>${tag}</body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // Another name than the servers' 127.0.0.1: the shop is a site of its own, as on the web.
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => site.close(() => resolve())) };
}

/** A visitor on the shop's page with the chat open. */
export async function openShop(
  browser: ConsoleBrowser,
  site: ShopSite,
  pagePath = '/',
  options: { locale?: string; colorScheme?: 'light' | 'dark'; openLabel?: string } = {},
): Promise<Page> {
  const { openLabel = 'Open chat', ...look } = options;
  const { page } = await browser.newPage(look);
  await page.goto(`${site.origin}${pagePath}`);
  await page.getByRole('button', { name: openLabel }).click();
  return page;
}

/** The messages the widget shows, each as its author's name and text. */
export const widgetMessages = (page: Page) => page.getByRole('log').locator('.msg').allTextContents();

/** An agent on the Conversations screen, online (the screen's event stream is open). */
export async function openConversations(
  browser: ConsoleBrowser,
  who: { username: string; password: string },
  options: { locale?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<Page> {
  const { page } = await browser.newPage(options);
  await browser.signIn(page, who.username, who.password);
  await page.goto('/conversations');
  await expect.poll(() => page.getByTestId('conversation-feed-status').getAttribute('data-status')).toBe('live');
  return page;
}

/** The chats listed on the Conversations screen's current tab. */
export const conversationRows = (page: Page) => page.getByTestId('conversation-row');
/** The messages of the chat open on the Conversations screen. */
/**
 * The queue's line to a chat waiting in it (docs/conversations.md, "Waiting in a queue"), as the
 * widget shows it; an expected wait may follow once the queue has recent takes.
 */
export const queuePlaceLine = (place: 'next' | number = 'next', who = 'Assistant') =>
  expect.stringMatching(new RegExp(`^${who}: A person will be with you shortly: you are ${place === 'next' ? 'next' : `number ${place}`} in the queue\\.`));

export const consoleMessages = (page: Page) => page.getByTestId('conversation-transcript').getByTestId('conversation-message').allInnerTexts();
