import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';

/**
 * Issue 13, item 3, in a browser: the built console and the API's documentation page work under
 * the Content-Security-Policy the server sends (no violation reported), and another site cannot
 * frame the console.
 */

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsole();
});
afterAll(() => harness.close());

/** A page that records every CSP violation the browser reports, as an event and on the console. */
async function watchedPage(): Promise<{ context: BrowserContext; page: Page; violations: () => Promise<string[]> }> {
  const { context, page } = await harness.newPage();
  const messages: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) messages.push(message.text());
  });
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const violations = async () => [...messages, ...(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations))];
  return { context, page, violations };
}

describe('the Content-Security-Policy', () => {
  test('the console signs in and shows its pages, light and dark, without a violation', async () => {
    const { page, violations } = await watchedPage();
    await harness.signIn(page);
    for (const path of ['/dashboard', '/tenants', '/users', '/audios', '/account/system-info']) {
      await page.goto(path);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
    }
    // The hardware id is shown to the administrator, and styles written at run time apply.
    await expect.poll(() => page.getByTestId('system-info-hardware-id').textContent()).not.toBe('Shown to administrators only');
    await page.getByRole('button', { name: 'Dark mode' }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'))).toBe('dark');
    expect(await violations()).toEqual([]);
  });

  test("the API's documentation page renders the API without a violation", async () => {
    const { page, violations } = await watchedPage();
    await page.goto('/api/v1/docs');
    await expect.poll(() => page.locator('.swagger-ui .info .title').textContent(), { timeout: 30_000 }).toMatch(/^Voxplan API/);
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    expect(await violations()).toEqual([]);
  });

  test('another site cannot frame the console', async () => {
    const framing = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><iframe id="console" src="${harness.baseUrl}/login"></iframe>`);
    });
    await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
    try {
      const { page } = await harness.newPage();
      const refused = page.waitForEvent('console', (message) => /frame-ancestors/.test(message.text()));
      // localhost and 127.0.0.1 are different origins.
      await page.goto(`http://localhost:${(framing.address() as AddressInfo).port}/`);
      expect((await refused).text()).toMatch(/violates .*frame-ancestors 'none'.*blocked/s);
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      expect(await frame?.locator('#root').count()).toBe(0);
    } finally {
      await new Promise((resolve) => framing.close(resolve));
    }
  });
});
