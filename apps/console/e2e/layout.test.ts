import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsole();
  const token = await harness.server.login();
  await harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'acme' } });
});
afterAll(() => harness.close());

type Language = { locale: string; colorScheme: 'light' | 'dark' };
// Portuguese labels are the longer ones; each language is tried in one scheme.
const languages: Language[] = [
  { locale: 'en-US', colorScheme: 'light' },
  { locale: 'pt-BR', colorScheme: 'dark' },
];

const pageOverflows = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** Signs in as the administrator (who has every menu item) on a screen of the given width. */
async function openAt(language: Language, width: number, layout: 'side' | 'top'): Promise<Page> {
  const { page } = await harness.newPage(language);
  await page.setViewportSize({ width, height: 800 });
  await harness.signIn(page);
  await page.evaluate((value) => localStorage.setItem('layout', JSON.stringify(value)), layout);
  await page.goto('/tenants');
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  return page;
}

/** Every menu item's name, as the side menu lists them on a wide screen. */
async function allMenuItems(language: Language): Promise<string[]> {
  const page = await openAt(language, 1400, 'side');
  const names = await page.getByRole('navigation').getByRole('link').allTextContents();
  await page.context().close();
  expect(names.length).toBe(16);
  return names;
}

/** The top menu's items: those shown in the header (wholly on screen), then those of the "More" menu. */
async function topMenuItems(page: Page): Promise<string[]> {
  const width = page.viewportSize()!.width;
  const links = page.getByTestId('top-menu').getByRole('link');
  const shown = await links.allTextContents();
  const rightEdges = await links.evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().right));
  expect(Math.max(0, ...rightEdges)).toBeLessThanOrEqual(width);
  const more = page.getByTestId('menu-more');
  if ((await more.count()) === 0) return shown;
  await more.click();
  await page.getByRole('menuitem').first().waitFor();
  const items = await page.getByRole('menuitem').allTextContents();
  await page.keyboard.press('Escape');
  await page.getByRole('menu').waitFor({ state: 'detached' });
  return [...shown, ...items];
}

describe('the top layout at mid widths', () => {
  for (const language of languages) {
    test(`${language.locale}: every item is in the header or its "More" menu, and nothing scrolls sideways`, async () => {
      const expected = await allMenuItems(language);
      const page = await openAt(language, 1400, 'top');
      for (const width of [1400, 1024, 800]) {
        await page.setViewportSize({ width, height: 800 });
        await expect.poll(() => topMenuItems(page)).toEqual(expected);
        // The controls at the header's end stay on screen.
        const userMenu = (await page.getByTestId('user-menu').boundingBox())!;
        expect(userMenu.x + userMenu.width).toBeLessThanOrEqual(width);
        expect(await pageOverflows(page), `sideways scroll at ${width} px`).toBe(false);
      }
      // An item of the "More" menu leads to its screen.
      await page.setViewportSize({ width: 800, height: 800 });
      await page.getByTestId('menu-more').click();
      const last = (await page.getByRole('menuitem').last().textContent())!;
      await page.getByRole('menuitem', { name: last }).click();
      await expect.poll(() => page.getByRole('heading', { level: 2, name: last }).count()).toBe(1);
    });
  }
});

test('full screen on a wide screen: no menu beside the content, and the burger opens every item', async () => {
  const expected = await allMenuItems(languages[0]!);
  const page = await openAt(languages[0]!, 1400, 'side');
  await page.getByTestId('fullscreen-toggle').click();
  await expect.poll(() => page.getByRole('navigation').count()).toBe(0);
  await page.getByTestId('menu-burger').click();
  await expect.poll(() => page.getByRole('dialog').getByRole('navigation').getByRole('link').allTextContents()).toEqual(expected);
});

describe('phones', () => {
  for (const [language, width, layout] of [
    [languages[0]!, 360, 'top'],
    [languages[1]!, 390, 'side'],
  ] as const) {
    test(`${width} px, ${layout} layout, ${language.locale}: the burger's drawer reaches every screen and the tenant picker; the header keeps the colour toggle and the user menu`, async () => {
      const expected = await allMenuItems(language);
      const page = await openAt(language, width, layout);
      expect(await pageOverflows(page)).toBe(false);
      for (const testId of ['color-scheme-toggle', 'user-menu', 'menu-burger']) {
        const box = (await page.getByTestId(testId).boundingBox())!;
        expect(box.x >= 0 && box.x + box.width <= width, testId).toBe(true);
      }

      await page.getByTestId('menu-burger').click();
      const drawer = page.getByRole('dialog');
      await expect.poll(() => drawer.getByRole('navigation').getByRole('link').allTextContents()).toEqual(expected);
      // The tenant picker, in the drawer: choosing a tenant works from a phone too.
      await drawer.getByTestId('tenant-picker').click();
      await page.getByRole('option', { name: 'acme' }).click();
      await expect.poll(() => page.evaluate(() => localStorage.getItem('default-tenant'))).not.toBe('0');
      // The last item leads to its screen and closes the drawer.
      await drawer.getByRole('link', { name: expected.at(-1)! }).click();
      await expect.poll(() => page.getByRole('heading', { level: 2, name: expected.at(-1)! }).count()).toBe(1);
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

      const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
      const before = await scheme();
      await page.getByTestId('color-scheme-toggle').click();
      await expect.poll(scheme).not.toBe(before);

      // The user menu: the language and signing out.
      await page.getByTestId('user-menu').click();
      const other = language.locale === 'en-US' ? 'pt' : 'en';
      await page.getByTestId(`locale-${other}`).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toContain(other);
      await page.getByTestId('user-menu').click();
      await page.getByTestId('logout').click();
      await page.waitForURL((url) => url.pathname === '/login');
    });
  }
});
