import { type DateRange, presetIntervals } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, type ConsoleHarness, rowWith, searchTable, startConsole } from './harness.ts';

let harness: ConsoleHarness;
let admin: string;
let user: TenantMember;

/** A tenant and a member (role user) in it, seeded through the API. */
beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.server.login();
  user = await createTenantMember(harness.server, admin, 'schedules');
});
afterAll(() => harness.close());

async function storedRanges(): Promise<DateRange[]> {
  const token = await harness.server.login(user.username, user.password);
  return (await harness.server.call({ method: 'GET', url: '/date-ranges', token })).json<DateRange[]>();
}

async function openScreen(locale = 'en-US', colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const { page } = await harness.newPage({ locale, colorScheme });
  await harness.signIn(page, user.username, user.password);
  await page.goto('/date-ranges');
  await page.getByTestId('date-range-new').waitFor();
  return page;
}

/** The searchable zone select: types part of the name, then picks the zone. */
async function chooseZone(page: Page, search: string, zone: string): Promise<void> {
  await page.getByTestId('date-range-time-zone').click();
  await page.getByTestId('date-range-time-zone').fill(search);
  await page.getByRole('option', { name: zone, exact: true }).click();
  await expect.poll(() => page.getByTestId('date-range-time-zone').inputValue()).toBe(zone);
}

const dayBar = (page: Page, day: string) => page.getByTestId(`week-${day}`);

describe('schedules screen', () => {
  test('a member creates a schedule from the lunch-break preset; the week drawing and "open now?" follow the form', async () => {
    const page = await openScreen();
    await page.getByTestId('date-range-new').click();
    await page.getByTestId('date-range-name').fill('Support desk');
    await chooseZone(page, 'Sao_P', 'America/Sao_Paulo');

    // Empty hours: closed all week, and closed now.
    expect(await dayBar(page, 'monday').getAttribute('aria-label')).toBe('Monday: Closed');
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('Out of hours');

    await page.getByTestId('date-range-preset-weekdays_with_break').click();
    expect(await page.getByTestId('date-range-preset-weekdays_with_break').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('interval-wednesday-1-start').inputValue()).toBe('13:00');
    expect(await dayBar(page, 'wednesday').getAttribute('aria-label')).toBe('Wednesday: 08:00 to 12:00, 13:00 to 18:00');
    expect(await dayBar(page, 'sunday').getAttribute('aria-label')).toBe('Sunday: Closed');
    expect(await dayBar(page, 'wednesday').locator('[data-open-segment]').count()).toBe(2);

    // A Friday night interval runs into Saturday, on the drawing too.
    await page.getByTestId('interval-add-friday').click();
    await page.getByTestId('interval-friday-2-start').fill('2200');
    await page.getByTestId('interval-friday-2-end').fill('0200');
    expect(await page.getByTestId('interval-friday-2-start').inputValue()).toBe('22:00');
    await expect.poll(() => page.getByTestId('date-range-day-friday').getByText('until the next day').count()).toBe(1);
    expect(await dayBar(page, 'saturday').getAttribute('aria-label')).toBe('Saturday: 00:00 to 02:00');
    expect(await page.getByTestId('date-range-preset-weekdays_with_break').getAttribute('aria-pressed')).toBe('false');
    await page.getByTestId('interval-friday-2-remove').click();
    expect(await dayBar(page, 'saturday').getAttribute('aria-label')).toBe('Saturday: Closed');

    // 24/7 is open whenever the test runs; the local time is on the range's clock.
    await page.getByTestId('date-range-preset-always').click();
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('In hours');
    await expect.poll(() => page.getByTestId('date-range-local-time').textContent()).toMatch(/^Local time: .*GMT-3/);
    await page.getByTestId('date-range-preset-weekdays_with_break').click();

    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByTestId('date-range-country').fill('br');
    await page.getByTestId('date-range-state').fill('sp');
    await page.getByTestId('date-range-city').fill('Campinas');
    await page.getByTestId('date-range-save').click();
    await expect.poll(() => page.getByText('Schedule created.').count()).toBe(1);
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => rowWith(page, 'Support desk').count()).toBe(1);
    expect(await rowWith(page, 'Support desk').locator('td').allTextContents()).toEqual(expect.arrayContaining(['America/Sao_Paulo', 'BR', 'SP', 'Campinas']));

    const [stored] = await storedRanges();
    expect(stored).toMatchObject({ name: 'Support desk', time_zone: 'America/Sao_Paulo', country: 'BR', state: 'SP', city: 'Campinas', exceptions: [], tenant_id: user.tenantId });
    expect(stored!.intervals).toEqual(expect.arrayContaining(presetIntervals('weekdays_with_break')));
    expect(stored!.intervals).toHaveLength(10);
  });

  test('field errors in English and in Portuguese: a bad time, reversed exception dates, a name in use', async () => {
    for (const [locale, badTime, reversed, nameInUse, created] of [
      ['en-US', 'Use HH:MM, from 00:00 to 23:59 (an end may be 24:00)', 'The initial date must not be after the final date', 'This name is already in use.', 'Schedule created.'],
      ['pt-BR', 'Use HH:MM, de 00:00 a 23:59 (um fim pode ser 24:00)', 'A data inicial não pode ser posterior à data final', 'Este nome já está em uso.', 'Horário criado.'],
    ] as const) {
      const page = await openScreen(locale);
      let posts = 0;
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/date-ranges') posts++;
      });
      const dialog = page.getByRole('dialog');
      await page.getByTestId('date-range-new').click();
      await page.getByTestId('date-range-name').fill('Support desk');
      await chooseZone(page, 'Lisbon', 'Europe/Lisbon');
      await page.getByTestId('interval-add-monday').click();
      await page.getByTestId('interval-monday-0-start').fill('25:00');
      await page.getByTestId('interval-monday-0-end').fill('18:00');
      await page.getByTestId('exception-add').click();
      await page.getByTestId('exception-0-name').fill('Inventory');
      await page.getByTestId('exception-0-initial').fill('2026-08-10');
      await page.getByTestId('exception-0-final').fill('2026-08-01');
      await page.getByTestId('date-range-save').click();

      await expect.poll(() => dialog.getByText(badTime, { exact: true }).count()).toBe(1);
      await expect.poll(() => dialog.getByText(reversed, { exact: true }).count()).toBe(1);
      expect(await page.getByTestId('interval-monday-0-start').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByTestId('interval-monday-0-end').getAttribute('aria-invalid')).not.toBe('true');
      expect(await page.getByTestId('exception-0-final').getAttribute('aria-invalid')).toBe('true');
      expect(posts).toBe(0);

      // Fixed, the name is the one left: the server says it is in use, on the field.
      await page.getByTestId('interval-monday-0-start').fill('08:00');
      await page.getByTestId('exception-0-final').fill('2026-08-20');
      await page.getByTestId('date-range-save').click();
      await expect.poll(() => dialog.getByText(nameInUse, { exact: true }).count()).toBe(1);
      expect(await page.getByTestId('date-range-name').getAttribute('aria-invalid')).toBe('true');
      expect(posts).toBe(1);

      await page.getByTestId('date-range-name').fill(`Warehouse ${locale}`);
      await page.getByTestId('date-range-save').click();
      await expect.poll(() => page.getByText(created).count()).toBe(1);
    }
    const warehouses = (await storedRanges()).filter((range) => range.name.startsWith('Warehouse'));
    expect(warehouses).toHaveLength(2);
    expect(warehouses[0]).toMatchObject({
      time_zone: 'Europe/Lisbon',
      intervals: [{ day: 'monday', start: '08:00', end: '18:00' }],
      exceptions: [{ name: 'Inventory', initial_date: '2026-08-10', final_date: '2026-08-20' }],
    });
  });

  test('the preview names the holiday of the place, and the exception in force', async () => {
    // Whatever the date when the test runs, a holiday of this made-up country falls on it in Tokyo.
    const today = Date.now();
    for (const offset of [-1, 0, 1, 2]) {
      const date = new Date(today + offset * 86_400_000).toISOString().slice(0, 10);
      const response = await harness.server.call({ method: 'POST', url: '/holidays', token: admin, payload: { name: 'Founders day', date, level: 'national', country: 'XA' } });
      expect(response.statusCode, response.body).toBe(201);
    }
    const page = await openScreen('pt-BR', 'dark');
    await page.getByTestId('date-range-new').click();
    await chooseZone(page, 'Tokyo', 'Asia/Tokyo');
    await page.getByTestId('date-range-preset-always').click();
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('Dentro do horário');
    await page.getByTestId('date-range-country').fill('XA');
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('Feriado');
    await expect.poll(() => page.getByTestId('date-range-preview').getByText('Feriado: Founders day').count()).toBe(1);
    expect(await page.getByTestId('date-range-local-time').textContent()).toMatch(/^Hora local: .*GMT\+9/);

    await page.getByTestId('date-range-country').fill('');
    await page.getByTestId('exception-add').click();
    await page.getByTestId('exception-0-name').fill('Reforma');
    const dateAt = (days: number) => new Date(today + days * 86_400_000).toISOString().slice(0, 10);
    await page.getByTestId('exception-0-initial').fill(dateAt(-2));
    await page.getByTestId('exception-0-final').fill(dateAt(2));
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('Fora do horário');
    await expect.poll(() => page.getByTestId('date-range-preview').getByText('Exceção: Reforma').count()).toBe(1);
    // The screen in the dark scheme, with the preview showing: no serious accessibility problem.
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  test('the preview is asked only of a valid form: reversed exception dates, typed key by key, draw no 400 from the server', async () => {
    const page = await openScreen();
    const previews: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/v1/date-ranges/preview') previews.push(response.status());
    });
    await page.getByTestId('date-range-new').click();
    await chooseZone(page, 'Lisbon', 'Europe/Lisbon');
    await page.getByTestId('date-range-preset-always').click();
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('In hours');

    await page.getByTestId('exception-add').click();
    await page.getByTestId('exception-0-name').pressSequentially('Inventory');
    await page.getByTestId('exception-0-initial').fill('2026-08-10');
    await page.getByTestId('exception-0-final').fill('2026-08-01');
    await expect.poll(() => page.getByTestId('date-range-preview').textContent()).toContain('Complete the form, or correct what it marks, to see whether it is open now.');
    await page.getByTestId('exception-0-final').fill('2026-08-20');
    await expect.poll(() => page.getByTestId('date-range-status').textContent()).toBe('In hours');
    expect(previews.length).toBeGreaterThan(0);
    expect(previews.filter((status) => status >= 400)).toEqual([]);
  });

  test('edit a schedule in its prefilled form, then remove it with the confirm dialog', async () => {
    const page = await openScreen();
    await searchTable(page, 'Support desk', 1);
    await page.getByTestId('date-range-edit').click();
    expect(await page.getByTestId('date-range-name').inputValue()).toBe('Support desk');
    expect(await page.getByTestId('date-range-time-zone').inputValue()).toBe('America/Sao_Paulo');
    expect(await page.getByTestId('date-range-preset-weekdays_with_break').getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('date-range-city').inputValue()).toBe('Campinas');
    await page.getByTestId('date-range-preset-weekdays').click();
    await page.getByTestId('date-range-city').fill('');
    await page.getByTestId('date-range-save').click();
    await expect.poll(() => page.getByText('Schedule edited.').count()).toBe(1);
    const edited = (await storedRanges()).find((range) => range.name === 'Support desk');
    expect(edited).toMatchObject({ intervals: presetIntervals('weekdays'), city: '', state: 'SP' });

    await rowWith(page, 'Support desk').getByTestId('date-range-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => rowWith(page, 'Support desk').count()).toBe(0);
    expect((await storedRanges()).map((range) => range.name)).not.toContain('Support desk');
  });
});
