import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole, untilStill } from './harness.ts';

let harness: ConsoleHarness;
/** The twelve tenants made here and the one a fresh install starts with ("default"). */
const allTenants = '13 records';
beforeAll(async () => {
  harness = await startConsole();
  const token = await harness.server.login();
  for (let i = 1; i <= 12; i++) {
    await harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name: `t${String(i).padStart(2, '0')}` } });
  }
});
afterAll(() => harness.close());

async function openTenants(width = 1366): Promise<Page> {
  const { page } = await harness.newPage();
  await page.setViewportSize({ width, height: 800 });
  await harness.signIn(page);
  await page.goto('/tenants');
  await expect.poll(() => page.getByTestId('table-total').textContent()).toBe(allTenants);
  return page;
}

const total = (page: Page) => page.getByTestId('table-total').textContent();

describe('filters', () => {
  test('Clear empties the filters and the list shows every row at once, without Apply', async () => {
    const page = await openTenants();
    await page.getByTestId('advanced-filters').click();
    await page.getByTestId('add-filter').click();
    await page.getByRole('option', { name: 'Name' }).click();
    await page.getByLabel('Value').fill('t1');
    await page.getByTestId('apply-filters').click();
    await expect.poll(() => total(page)).toBe('3 records');

    await page.getByTestId('advanced-filters').click();
    await page.getByTestId('clear-filters').click();
    await expect.poll(() => total(page)).toBe(allTenants);
    expect(await page.getByTestId('table-row').count()).toBe(10);
    // The filter is gone from the form too: nothing left to apply.
    expect(await page.getByLabel('Value').count()).toBe(0);
  });

  test('rows selected before the filter changes are no longer selected, so a bulk removal cannot take them unseen', async () => {
    const page = await openTenants();
    await page.getByRole('checkbox', { name: 'Select row' }).nth(0).check();
    await expect.poll(() => page.getByTestId('bulk-remove').textContent()).toBe('Remove selected (1)');
    await page.getByTestId('table-search').fill('t1');
    await expect.poll(() => total(page)).toBe('3 records');
    expect(await page.getByTestId('bulk-remove').textContent()).toBe('Remove selected (0)');
  });
});

describe('toasts and modals', () => {
  for (const width of [1366, 390]) {
    test(`${width} px: a toast raised while a modal is open does not cover the modal's title or close button`, async () => {
      const page = await openTenants(width);
      await page.route('**/api/v1/tenants', (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { statusCode: 500, name: 'InternalServerError', message: 'Database unavailable' } }) })
          : route.continue(),
      );
      await page.getByTestId('tenant-new').click();
      await page.getByTestId('tenant-name').fill('newcomer');
      await page.getByTestId('tenant-save').click();
      const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Database unavailable' });
      await toast.waitFor();
      // The toast has arrived where it stays (it slides in, longer on a loaded machine).
      await page.waitForTimeout(400);
      await untilStill(toast);
      const dialog = page.getByRole('dialog');
      const toastBox = (await toast.boundingBox())!;
      for (const part of [dialog.getByRole('heading', { name: 'Create tenant' }), dialog.getByRole('button', { name: 'Close' })]) {
        const box = (await part.boundingBox())!;
        const overlaps =
          box.x < toastBox.x + toastBox.width && toastBox.x < box.x + box.width && box.y < toastBox.y + toastBox.height && toastBox.y < box.y + box.height;
        expect(overlaps, JSON.stringify({ toast: toastBox, part: box })).toBe(false);
      }
      // Still at the top of the screen, just below the modal's header.
      expect(toastBox.y).toBeLessThan(200);
    });
  }
});
