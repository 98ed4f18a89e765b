import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { accessibilityViolations, type ConsoleHarness, networkSettled, startConsole } from './harness.ts';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsole();
  const token = await harness.server.login();
  await harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'acme' } });
});
afterAll(() => harness.close());

const background = (selector: string) => `getComputedStyle(document.querySelector('${selector}')).backgroundColor`;

describe('language and colour scheme', () => {
  test('the language starts from the browser, is switched from the menu, persists and is sent as accept-language', async () => {
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    const languages: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/tenants')) languages.push(request.headers()['accept-language'] ?? '');
    });
    await harness.signIn(page);
    await page.goto('/tenants');
    await expect.poll(() => page.getByRole('heading', { name: 'Tenants' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Usuários' }).count()).toBe(1);
    expect(languages.at(-1)).toBe('pt-BR');

    await page.getByTestId('user-menu').click();
    await page.getByTestId('locale-en').click();
    await expect.poll(() => page.getByRole('link', { name: 'Users' }).count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByRole('link', { name: 'Users' }).count()).toBe(1);
    await expect.poll(() => languages.at(-1)).toBe('en');
  });

  test('a browser in another language gets English', async () => {
    const { page } = await harness.newPage({ locale: 'de-DE' });
    await page.goto('/login');
    await expect.poll(() => page.getByTestId('login-submit').textContent()).toBe('Sign in');
  });

  test('dark mode: auto follows the system; the toggle switches; picking the system scheme returns to auto', async () => {
    const { page } = await harness.newPage({ colorScheme: 'dark' });
    await harness.signIn(page);
    await page.goto('/tenants');
    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    await expect.poll(scheme).toBe('dark');
    const darkBody = await page.evaluate(background('body'));
    await page.getByTestId('color-scheme-toggle').click();
    await expect.poll(scheme).toBe('light');
    expect(await page.evaluate(background('body'))).not.toBe(darkBody);
    expect(await page.evaluate(() => localStorage.getItem('color-scheme'))).toBe('light');
    await page.reload();
    await expect.poll(scheme).toBe('light');
    await page.getByTestId('color-scheme-toggle').click();
    await expect.poll(scheme).toBe('dark');
    // Dark is what the system prefers: the choice goes back to following it.
    expect(await page.evaluate(() => localStorage.getItem('color-scheme'))).toBe('auto');
  });

  test('layout: side or top menu, remembered; the footer is hidden where the spec says', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await expect.poll(() => page.getByRole('navigation').count()).toBe(1);
    await page.getByTestId('layout-toggle').click();
    await expect.poll(() => page.getByRole('navigation').count()).toBe(0);
    await page.reload();
    // The first items are in the header; those that do not fit are under "More" (layout.test.ts).
    await expect.poll(() => page.getByTestId('top-menu').getByRole('link', { name: 'Destinations' }).count()).toBe(1);
    expect(await page.getByRole('navigation').count()).toBe(0);
    expect(await page.getByTestId('footer').count()).toBe(1);
    await page.goto('/general-settings');
    await expect.poll(() => page.getByRole('heading', { name: 'General settings' }).count()).toBe(1);
    expect(await page.getByTestId('footer').count()).toBe(0);
    await page.goto('/visual-plan');
    await expect.poll(() => page.getByRole('heading', { name: 'Visual plan' }).count()).toBe(1);
    expect(await page.getByTestId('footer').count()).toBe(0);
  });
});

const screens = [
  '/login',
  '/dashboard',
  '/destination',
  '/do-not-call',
  '/tenants',
  '/users',
  '/general-settings',
  '/date-ranges',
  '/date-ranges/holidays',
  '/audit',
  '/acl',
  '/audios',
  '/visual-plan',
  '/account/profile',
  '/account/password',
  '/account/credentials',
  '/account/system-info',
];

describe('accessibility (axe-core): no serious or critical violation', () => {
  // A sweep of every screen with axe-core, in both schemes: each screen is loaded once and checked
  // in light, then in dark (the console follows the system's scheme until one is picked), which
  // halves the page loads and network waits of a sweep per scheme.
  test('every screen in the light and in the dark scheme', { timeout: 600_000 }, async () => {
    const { page } = await harness.newPage({ colorScheme: 'light' });
    await harness.signIn(page);
    const found: string[] = [];
    const checkBothSchemes = async (shown: Page, path: string) => {
      for (const colorScheme of ['light', 'dark'] as const) {
        await shown.emulateMedia({ colorScheme });
        await expect.poll(() => shown.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'))).toBe(colorScheme);
        found.push(...(await accessibilityViolations(shown)).map((v) => `${path} (${colorScheme}): ${v}`));
      }
    };
    for (const path of screens) {
      if (path === '/login') {
        const { page: anonymous } = await harness.newPage({ colorScheme: 'light' });
        await anonymous.goto('/login');
        await anonymous.getByTestId('login-submit').waitFor();
        await checkBothSchemes(anonymous, path);
        continue;
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(path);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await networkSettled(page);
      await checkBothSchemes(page, path);
    }
    expect(found).toEqual([]);
  });
});
