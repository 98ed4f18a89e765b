import { AxeBuilder } from '@axe-core/playwright';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { type Browser, type BrowserContext, chromium, type Locator, type Page, type Request } from 'playwright-core';
import type { PhoneNumber } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import { expect } from 'vitest';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';

export { ADMIN } from '../../server/test/harness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// The machine has no network: without these, Chromium keeps trying to reach Google's services.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A headless Chromium whose pages open the console at `baseUrl`. */
export interface ConsoleBrowser {
  baseUrl: string;
  browser: Browser;
  /** `timezoneId`: the browser's clock's zone (an IANA name); the host's when left out. */
  newPage(options?: { locale?: string; colorScheme?: 'light' | 'dark'; timezoneId?: string }): Promise<{ context: BrowserContext; page: Page }>;
  signIn(page: Page, username?: string, password?: string): Promise<void>;
  close(): Promise<void>;
}

export interface ConsoleHarness extends ConsoleBrowser {
  server: TestServer;
}

/**
 * The console served by `baseUrl` in a headless Chromium: for a server this process runs
 * (startConsole) or one in another process (several instances on one database).
 */
export async function launchConsoleBrowser(baseUrl: string): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const contexts: BrowserContext[] = [];
  return {
    baseUrl,
    browser,
    async newPage({ locale = 'en-US', colorScheme = 'light', timezoneId } = {}) {
      const context = await browser.newContext({ baseURL: baseUrl, locale, colorScheme, viewport: { width: 1366, height: 860 }, ...(timezoneId && { timezoneId }) });
      contexts.push(context);
      const page = await context.newPage();
      trackRequests(page);
      return { context, page };
    },
    async signIn(page, username = 'admin', password = 'admin-password-1') {
      await page.goto('/login');
      await page.getByLabel(/username|usuário/i).fill(username);
      await page.getByLabel(/^(password|senha)$/i).fill(password);
      await page.getByTestId('login-submit').click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}

/**
 * The built console's directory for a server: E2E_CONSOLE_DIR serves a console built elsewhere, so
 * that a build of the working tree cannot replace the files under a running test.
 */
export const consoleDirEnv = (): Record<string, string> => (process.env.E2E_CONSOLE_DIR ? { CONSOLE_DIR: process.env.E2E_CONSOLE_DIR } : {});

/** A real server on a fresh database, serving the built console, and a headless Chromium. */
export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleHarness> {
  const server = await startTestServer({ ...consoleDirEnv(), ...env });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = server.app.server.address() as AddressInfo;
  const browser = await launchConsoleBrowser(`http://127.0.0.1:${port}`);
  return {
    ...browser,
    server,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** The console's event streams (conversations, the dashboard's live figures): open as long as their page. */
const isEventStream = (request: Request): boolean => new URL(request.url()).pathname.endsWith('/events');

/** Each page's requests still under way, its event streams left out (networkSettled). */
const requestsUnderWay = new WeakMap<Page, Set<Request>>();

function trackRequests(page: Page): void {
  const underWay = new Set<Request>();
  requestsUnderWay.set(page, underWay);
  page.on('request', (request) => {
    if (!isEventStream(request)) underWay.add(request);
  });
  page.on('requestfinished', (request) => underWay.delete(request));
  page.on('requestfailed', (request) => underWay.delete(request));
}

/**
 * Waits for the page's requests to go quiet (none under way for 300 ms), for at most 3 s. Every
 * page of the console keeps the conversations' event stream open (and the dashboard its live feed),
 * so Playwright's `networkidle` never comes and waited the whole 3 s on every call: the streams are
 * left out here, and a page made by `newPage` settles as soon as its data has come.
 */
export async function networkSettled(page: Page): Promise<void> {
  const underWay = requestsUnderWay.get(page);
  if (!underWay) {
    await page.waitForLoadState('networkidle', { timeout: 3_000 }).catch(() => undefined);
    return;
  }
  const deadline = Date.now() + 3_000;
  let quietSince = underWay.size === 0 ? Date.now() : Number.POSITIVE_INFINITY;
  while (Date.now() < deadline && Date.now() - quietSince < 300) {
    await delay(50);
    if (underWay.size > 0) quietSince = Number.POSITIVE_INFINITY;
    else if (quietSince === Number.POSITIVE_INFINITY) quietSince = Date.now();
  }
}

/** axe-core on the current page: the serious and critical violations, described for a failure message. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Colours read halfway through a transition (a modal fading in, a button turning to "Copied")
  // are neither the old nor the new ones: axe then reports a contrast that nobody sees. Wait for
  // every finite animation and transition to end (endless ones, such as a loader, are left running).
  await page.evaluate(async () => {
    const finite = document.getAnimations().filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)));
    await Promise.race([Promise.allSettled(finite.map((animation) => animation.finished)), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  });
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')})`);
}

/** Narrows a table screen with its search box until every row shown holds the text. */
export async function searchTable(page: Page, text: string, rows: number): Promise<void> {
  await page.getByTestId('table-search').fill(text);
  await expect
    .poll(async () => {
      const shown = await page.getByTestId('table-row').allTextContents();
      return shown.every((row) => row.toLowerCase().includes(text.toLowerCase())) ? shown.length : -1;
    })
    .toBe(rows);
}

export const rowWith = (page: Page, text: string): Locator => page.getByTestId('table-row').filter({ hasText: text });

/** Picks an option of a Mantine select: opens it, then clicks the option by its visible label. */
export async function chooseOption(page: Page, testId: string, label: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: label, exact: true }).click();
}

/** A plan made through the API by `token`'s user, with `content` (nodes, edges, settings) as its draft when given. */
export async function createPlan(server: TestServer, token: string, name: string, content?: Record<string, unknown>): Promise<VisualPlanDocument> {
  const created = await server.call({ method: 'POST', url: '/visual-plans', token, payload: { name } });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<VisualPlan>().id;
  if (!content) return (await server.call({ method: 'GET', url: `/visual-plans/${id}/document`, token })).json<VisualPlanDocument>();
  const saved = await server.call({ method: 'PUT', url: `/visual-plans/${id}/document`, token, payload: { base_version: 1, ...content } });
  expect(saved.statusCode, saved.body).toBe(200);
  return saved.json<VisualPlanDocument>();
}

/** A number made through the API by `token`'s user (a web chat's, a WhatsApp one's). */
export async function createNumber(server: TestServer, token: string, payload: Record<string, unknown>): Promise<PhoneNumber> {
  const created = await server.call({ method: 'POST', url: '/numbers', token, payload });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<PhoneNumber>();
}

/** Signs a user in on a new page and opens a plan in the editor, once its canvas shows a block. */
export async function openPlanEditor(
  harness: ConsoleHarness,
  planId: number,
  who: { username: string; password: string },
  options: { locale?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<Page> {
  const { page } = await harness.newPage(options);
  await harness.signIn(page, who.username, who.password);
  await page.goto(`/visual-plan/${planId}`);
  await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
  await settledView(page);
  return page;
}

/**
 * Waits for the canvas's viewport to stop moving (the opening fit once blocks are measured, the view
 * following a block just added, animated over 300 ms): the same transform read three times, 150 ms
 * apart. A drag aimed while the view moves lands beside its handle.
 */
export async function settledView(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      new Promise<boolean>((resolve) => {
        const read = () => document.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '';
        const first = read();
        setTimeout(() => {
          const second = read();
          setTimeout(() => resolve(first === second && second === read()), 150);
        }, 150);
      }),
  );
}

/** Whether the element has the page's focus: where the person's next keys go. */
export const isFocused = (locator: Locator): Promise<boolean> => locator.evaluate((element) => element === document.activeElement);

/** Waits for the view's animation to end: the block stays where it is for a few frames. */
export async function untilStill(block: Locator): Promise<void> {
  let last = '';
  await expect
    .poll(async () => {
      const box = JSON.stringify(await block.boundingBox());
      const still = box === last;
      last = box;
      return still;
    })
    .toBe(true);
}
