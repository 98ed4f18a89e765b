import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

let harness: ConsoleHarness;
let token: string;
beforeAll(async () => {
  harness = await startConsole();
  token = await harness.server.login();
});
afterAll(() => harness.close());

const tenantRows = (names: string[]) =>
  Promise.all(names.map((name) => harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name } })));

describe('tenants', () => {
  test('create: the name is masked as typed, saved lowercased, and the list reloads', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await page.getByTestId('tenant-new').click();
    await page.getByTestId('tenant-name').pressSequentially('Acme Corp!');
    expect(await page.getByTestId('tenant-name').inputValue()).toBe('acmecorp');
    await page.getByTestId('tenant-save').click();
    await expect.poll(() => page.getByText('Tenant created.').count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: 'acmecorp' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  test('validation errors are shown in English and in Portuguese', async () => {
    await tenantRows(['taken']);
    for (const [locale, required, duplicate, tooLong] of [
      ['en-US', 'Required', 'A tenant with this name already exists.', 'At most 50 characters'],
      ['pt-BR', 'Obrigatório', 'Já existe um tenant com este nome.', 'No máximo 50 caracteres'],
    ] as const) {
      const { page } = await harness.newPage({ locale });
      await harness.signIn(page);
      await page.goto('/tenants');
      await page.getByTestId('tenant-new').click();
      await page.getByTestId('tenant-country').waitFor();
      await screenshotStates(page, 'tenant-form', { group: 'tenants' });
      await page.getByTestId('tenant-save').click();
      await expect.poll(() => page.getByRole('dialog').getByText(required).count()).toBe(1);
      await page.getByTestId('tenant-name').fill('x'.repeat(51));
      await page.getByTestId('tenant-save').click();
      await expect.poll(() => page.getByRole('dialog').getByText(tooLong).count()).toBe(1);
      await page.getByTestId('tenant-name').fill('taken');
      await page.getByTestId('tenant-save').click();
      await expect.poll(() => page.getByText(duplicate).count()).toBeGreaterThan(0);
      // The failed saves left the modal open with the value typed.
      expect(await page.getByTestId('tenant-name').inputValue()).toBe('taken');
    }
  });

  test('edit a tenant in the small modal, prefilled; its language, country and time zone are the server’s until chosen', async () => {
    const [created] = await tenantRows(['before-edit']);
    const tenantId = created!.json<{ id: number }>().id;
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await page.getByTestId('table-search').fill('before-edit');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    await page.getByTestId('tenant-edit').click();
    expect(await page.getByTestId('tenant-name').inputValue()).toBe('before-edit');
    await page.getByTestId('tenant-name').fill('after-edit');
    expect(await page.getByTestId('tenant-language').inputValue()).toBe('The server’s language');
    await page.getByTestId('tenant-language').click();
    await page.getByRole('option', { name: 'Português (Brasil) · pt-BR' }).click();
    expect(await page.getByTestId('tenant-country').inputValue()).toBe('The server’s country (from its language)');
    await page.getByTestId('tenant-country').fill('brazil');
    await page.getByRole('option', { name: 'Brazil · BR' }).click();
    expect(await page.getByTestId('tenant-time-zone').inputValue()).toBe('The server’s time zone');
    await page.getByTestId('tenant-time-zone').fill('sao paulo');
    await page.getByRole('option', { name: 'America/Sao Paulo' }).click();
    await page.getByTestId('tenant-save').click();
    await expect.poll(() => page.getByText('Tenant edited.').count()).toBe(1);
    await page.getByTestId('table-search').fill('after-edit');
    await expect.poll(() => page.getByRole('cell', { name: 'after-edit' }).count()).toBe(1);
    const stored = await harness.server.call({ method: 'GET', url: `/tenants/${tenantId}`, token });
    expect(stored.json()).toMatchObject({ language: 'pt-BR', country: 'BR', time_zone: 'America/Sao_Paulo' });
  });

  test('the integrations modal loads, validates, saves only enabled providers and masks secrets', async () => {
    const [created] = await tenantRows(['with-integrations']);
    const tenantId = created!.json<{ id: number }>().id;
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await page.getByTestId('table-search').fill('with-integrations');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    await page.getByTestId('tenant-integrations').click();
    const save = page.getByTestId('integrations-save');
    await expect.poll(() => save.isDisabled()).toBe(true);
    // The second AI provider needs its feature flag.
    expect(await page.getByTestId('switch-second-ai').count()).toBe(0);

    await page.getByTestId('switch-voice').check({ force: true });
    await expect.poll(() => save.isDisabled()).toBe(false);
    await save.click();
    await expect.poll(() => page.getByRole('dialog').getByText('Required').count()).toBe(2);

    await page.getByTestId('twilio-sid').fill('AC0123456789');
    await page.getByTestId('twilio-token').fill('secret-token-123456');
    const sent = page.waitForRequest((request) => request.url().endsWith(`/tenants/${tenantId}/integrations`) && request.method() === 'PATCH');
    await save.click();
    expect((await sent).postDataJSON()).toEqual({ twilio_sid: 'AC0123456789', twilio_token: 'secret-token-123456' });
    await expect.poll(() => page.getByText('Integrations saved.').count()).toBe(1);

    const stored = await harness.server.call({ method: 'GET', url: `/tenants/${tenantId}/integrations`, token });
    expect(stored.json()).toEqual({ twilio_sid: 'AC0123456789', twilio_token: '••••3456' });

    // Reopened, it shows the masked token and keeps it when saved unchanged but for the SID.
    await page.getByTestId('tenant-integrations').click();
    await expect.poll(() => page.getByTestId('twilio-token').inputValue()).toBe('••••3456');
    await page.getByTestId('twilio-sid').fill('AC999');
    await page.getByTestId('integrations-save').click();
    await expect.poll(async () => (await harness.server.call({ method: 'GET', url: `/tenants/${tenantId}/integrations`, token })).json()).toEqual({
      twilio_sid: 'AC999',
      twilio_token: '••••3456',
    });
  });

  test('with its feature flag on, the second AI provider appears', async () => {
    const flag = await harness.server.call({ method: 'GET', url: `/configurations?filter=${encodeURIComponent(JSON.stringify({ where: { name: 'feature_second_ai_provider' } }))}`, token });
    const flagId = flag.json<{ id: number }[]>()[0]!.id;
    await harness.server.call({ method: 'PATCH', url: `/configurations/${flagId}`, token, payload: { value: 'true' } });
    await tenantRows(['second-ai']);
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await page.getByTestId('table-search').fill('second-ai');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    await page.getByTestId('tenant-integrations').click();
    await expect.poll(() => page.getByTestId('switch-second-ai').count()).toBe(1);
    await harness.server.call({ method: 'PATCH', url: `/configurations/${flagId}`, token, payload: { value: 'false' } });
  });

  test('the selected tenant cannot be removed; another can, with the confirm dialog', async () => {
    const [keep, drop] = await tenantRows(['selected-one', 'removable-one']);
    const keepId = keep!.json<{ id: number }>().id;
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.evaluate((id) => localStorage.setItem('default-tenant', String(id)), keepId);
    await page.goto('/tenants');
    await page.getByTestId('table-search').fill('-one');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
    const selectedRow = page.getByTestId('table-row').filter({ hasText: 'selected-one' });
    await selectedRow.getByTestId('tenant-remove').click();
    await expect.poll(() => page.getByText('This tenant is in use and cannot be removed.').count()).toBe(1);
    expect(await selectedRow.getByRole('checkbox').isDisabled()).toBe(true);

    const removableRow = page.getByTestId('table-row').filter({ hasText: 'removable-one' });
    await removableRow.getByTestId('tenant-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    expect(drop!.statusCode).toBe(201);
  });

  test('the tenant picker: the choice is stored under default-tenant and sent as x-tenant-id', async () => {
    const [picked] = await tenantRows(['picked-tenant']);
    const pickedId = picked!.json<{ id: number }>().id;
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/users');
    const tenantHeaders: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/users')) tenantHeaders.push(request.headers()['x-tenant-id'] ?? '');
    });
    await page.getByTestId('tenant-picker').click();
    await page.getByRole('option', { name: 'picked-tenant' }).click();
    await expect.poll(() => tenantHeaders.at(-1)).toBe(String(pickedId));
    expect(await page.evaluate(() => localStorage.getItem('default-tenant'))).toBe(String(pickedId));
    await page.reload();
    await expect.poll(() => page.getByTestId('tenant-picker').inputValue()).toBe('picked-tenant');
    await page.getByTestId('tenant-picker').click();
    await page.getByRole('option', { name: 'All tenants' }).click();
    await expect.poll(() => tenantHeaders.at(-1)).toBe('0');
  });
});
