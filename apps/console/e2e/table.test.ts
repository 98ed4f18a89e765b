import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';

let harness: ConsoleHarness;
beforeAll(async () => {
  harness = await startConsole();
  const token = await harness.server.login();
  // The tenant a fresh install starts with goes: the table holds only the 27 made here.
  const tenants = (await harness.server.call({ method: 'GET', url: '/tenants', token })).json<{ id: number }[]>();
  for (const { id } of tenants) await harness.server.call({ method: 'DELETE', url: `/tenants/${id}`, token });
  for (let i = 1; i <= 27; i++) {
    await harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name: `t${String(i).padStart(2, '0')}` } });
  }
});
afterAll(() => harness.close());

const firstCells = (page: Page) => page.getByTestId('table-row').locator('td:nth-child(2)').allTextContents();

async function openTenants() {
  const { page, context } = await harness.newPage();
  await harness.signIn(page);
  await page.goto('/tenants');
  await expect.poll(() => page.getByTestId('table-row').count()).toBe(10);
  return { page, context };
}

describe('the table screen', () => {
  test('page size: 10 by default, the choice is remembered per table after a reload', async () => {
    const { page } = await openTenants();
    expect(await page.getByTestId('table-total').textContent()).toBe('27 records');
    await page.getByTestId('page-size').click();
    await page.getByRole('option', { name: '25' }).click();
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(25);
    await page.reload();
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(25);
    expect(await page.getByTestId('page-size').inputValue()).toBe('25');
    // Another table keeps its own default.
    await page.goto('/users');
    await expect.poll(() => page.getByTestId('page-size').inputValue()).toBe('10');
  });

  test('shift+K focuses the search, and the search filters the rows', async () => {
    const { page } = await openTenants();
    await page.getByRole('heading', { name: 'Tenants' }).click();
    await page.keyboard.press('Shift+K');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('table-search');
    await page.keyboard.type('t2');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(8);
  });

  test('a column sorts ascending, then descending, then not at all', async () => {
    const { page } = await openTenants();
    const sorted = () => page.locator('th[aria-sort]').getAttribute('aria-sort');
    // Tenants open sorted by name; the creation time starts unsorted.
    await page.getByTestId('sort-created_time').click();
    await expect.poll(sorted).toBe('ascending');
    await expect.poll(async () => (await firstCells(page))[0]).toBe('t01');
    await page.getByTestId('sort-created_time').click();
    await expect.poll(sorted).toBe('descending');
    // Tenants created within the same millisecond tie; the newest ones come first all the same.
    await expect.poll(async () => (await firstCells(page))[0]).toMatch(/^t2[0-9]$/);
    expect(await firstCells(page)).not.toContain('t01');
    await page.getByTestId('sort-created_time').click();
    await expect.poll(() => page.locator('th[aria-sort]').count()).toBe(0);
  });

  test('advanced filters: a text filter narrows the list, clearing restores it', async () => {
    const { page } = await openTenants();
    await page.getByTestId('advanced-filters').click();
    await page.getByTestId('add-filter').click();
    await page.getByRole('option', { name: 'Name' }).click();
    await page.getByLabel('Value').fill('t1');
    await page.getByTestId('apply-filters').click();
    await expect.poll(() => page.getByTestId('table-total').textContent()).toBe('10 records');
    await page.getByTestId('advanced-filters').click();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByTestId('apply-filters').click();
    await expect.poll(() => page.getByTestId('table-total').textContent()).toBe('27 records');
  });

  test('bulk remove: a warning with nothing selected, then the confirm dialog and a toast', async () => {
    const { page } = await openTenants();
    await page.getByTestId('bulk-remove').click();
    await expect.poll(() => page.getByText('No record selected.').count()).toBe(1);
    await page.getByTestId('table-search').fill('t0');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(9);
    await page.getByRole('checkbox', { name: 'Select row' }).nth(0).check();
    await page.getByRole('checkbox', { name: 'Select row' }).nth(1).check();
    await page.getByTestId('bulk-remove').click();
    await expect.poll(() => page.getByText('Remove 2 records? This cannot be undone.').count()).toBe(1);
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('2 records removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(7);
  });

  test('an error from the server shows the error view with its message', async () => {
    const { page } = await openTenants();
    await page.route('**/api/v1/tenants?**', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { statusCode: 500, name: 'InternalServerError', message: 'Database unavailable' } }) }),
    );
    await page.getByTestId('table-refresh').click();
    await expect.poll(() => page.getByTestId('page-error').textContent()).toContain('Database unavailable');
    expect(await page.getByTestId('page-error').textContent()).toContain('An error occurred');
  });

  test('a newer search cancels the request still running for the older one', async () => {
    const { page } = await openTenants();
    // Answers take a while, so the first request is still running when the second starts.
    await page.route('**/api/v1/tenants?**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue().catch(() => undefined);
    });
    const aborted: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.url().includes('/api/v1/tenants?')) aborted.push(request.failure()?.errorText ?? '');
    });
    await page.getByTestId('table-search').pressSequentially('t2', { delay: 150 });
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(8);
    expect(aborted.length).toBeGreaterThan(0);
    expect(aborted.every((text) => text.includes('ABORTED'))).toBe(true);
  });

  test('automatic refresh asks again every N seconds without a click', async () => {
    const { page } = await openTenants();
    let listCalls = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/tenants?')) listCalls++;
    });
    await page.getByLabel('Refresh automatically').first().click();
    await page.getByRole('option', { name: 'Every 5 s' }).click();
    await expect.poll(() => listCalls, { timeout: 12_000 }).toBeGreaterThanOrEqual(2);
  });

  test('a form gives its first field the focus when it opens', async () => {
    const { page } = await openTenants();
    await page.getByTestId('tenant-new').click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tenant-name');
  });
});
