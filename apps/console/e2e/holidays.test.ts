import type { Holiday } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chooseOption, type ConsoleHarness, rowWith, searchTable, startConsole } from './harness.ts';

let harness: ConsoleHarness;
let token: string;
beforeAll(async () => {
  harness = await startConsole();
  token = await harness.server.login();
});
afterAll(() => harness.close());

async function holidaysWhere(where: Record<string, unknown>): Promise<Holiday[]> {
  const response = await harness.server.call({ method: 'GET', url: `/holidays?filter=${encodeURIComponent(JSON.stringify({ where }))}`, token });
  return response.json<Holiday[]>();
}

async function openHolidays(locale = 'en-US'): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page);
  await page.goto('/date-ranges/holidays');
  await page.getByTestId('holiday-new').waitFor();
  return page;
}

describe('holidays', () => {
  test('an admin imports BR 2026: the summary says what was added, and the rows appear', async () => {
    const page = await openHolidays();
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    await page.getByTestId('holiday-import').click();
    expect(await page.getByTestId('holiday-import-country').inputValue()).toBe('BR');
    await page.getByTestId('holiday-import-year').fill('2026');
    await page.getByTestId('holiday-import-submit').click();

    const summary = page.getByTestId('holiday-import-summary');
    await summary.waitFor();
    const added = (await holidaysWhere({ country: 'BR' })).length;
    expect(added).toBeGreaterThan(5);
    expect(await summary.textContent()).toBe(`${added} added, 0 already there`);
    await page.getByTestId('holiday-import-close').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    await searchTable(page, 'Tiradentes', 1);
    expect(await rowWith(page, 'Tiradentes').locator('td').allTextContents()).toEqual(expect.arrayContaining(['2026-04-21', 'Dia de Tiradentes', 'National', 'BR']));

    // Again: nothing new, everything already there.
    await page.getByTestId('holiday-import').click();
    await page.getByTestId('holiday-import-year').fill('2026');
    await page.getByTestId('holiday-import-submit').click();
    await expect.poll(() => page.getByTestId('holiday-import-summary').textContent()).toBe(`0 added, ${added} already there`);
    expect(await holidaysWhere({ country: 'BR' })).toHaveLength(added);
  });

  test('a recurring city holiday: the missing city is refused first, in English and in Portuguese', async () => {
    for (const [locale, level, required, created] of [
      ['en-US', 'City', 'Required', 'Holiday created.'],
      ['pt-BR', 'Municipal', 'Obrigatório', 'Feriado criado.'],
    ] as const) {
      const page = await openHolidays(locale);
      let posts = 0;
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/holidays') posts++;
      });
      const name = `Aniversário ${locale}`;
      await page.getByTestId('holiday-new').click();
      await page.getByTestId('holiday-name').fill(name);
      await page.getByTestId('holiday-date').fill('2026-01-25');
      await page.getByTestId('holiday-recurring').check({ force: true });
      await chooseOption(page, 'holiday-level', level);
      await page.getByTestId('holiday-country').fill('br');
      expect(await page.getByTestId('holiday-country').inputValue()).toBe('BR');
      await page.getByTestId('holiday-state').fill('SP');
      await page.getByTestId('holiday-save').click();

      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByText(required, { exact: true }).count()).toBe(1);
      expect(await page.getByTestId('holiday-city').getAttribute('aria-invalid')).toBe('true');
      expect(posts).toBe(0);

      await page.getByTestId('holiday-city').fill('São Paulo');
      await page.getByTestId('holiday-save').click();
      await expect.poll(() => page.getByText(created).count()).toBe(1);
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      expect(posts).toBe(1);
      const [saved] = await holidaysWhere({ name });
      expect(saved).toMatchObject({ date: '2026-01-25', recurring: true, level: 'city', country: 'BR', state: 'SP', city: 'São Paulo' });
    }
  });

  test('remove a holiday through the confirm dialog', async () => {
    const response = await harness.server.call({
      method: 'POST',
      url: '/holidays',
      token,
      payload: { name: 'Doomed day', date: '2026-06-06', level: 'national', country: 'PT' },
    });
    expect(response.statusCode).toBe(201);
    const page = await openHolidays();
    await searchTable(page, 'Doomed', 1);
    await page.getByTestId('holiday-remove').click();
    await expect.poll(() => page.getByText('Remove this record? This cannot be undone.').count()).toBe(1);
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    expect(await holidaysWhere({ name: 'Doomed day' })).toEqual([]);
  });
});
