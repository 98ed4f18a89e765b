import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, rowWith, searchTable, startConsole } from './harness.ts';

/** General settings: a system setting is edited through the input its kind calls for, and checked before it is sent. */
let harness: ConsoleHarness;
let token: string;

beforeAll(async () => {
  harness = await startConsole();
  token = await harness.server.login();
});
afterAll(() => harness.close());

async function storedValue(name: string): Promise<string | undefined> {
  const response = await harness.server.call({ method: 'GET', url: `/configurations?filter=${encodeURIComponent(JSON.stringify({ where: { name } }))}`, token });
  return response.json<{ value: string }[]>()[0]?.value;
}

async function editSetting(name: string): Promise<{ page: Page; patches: () => number }> {
  const { page } = await harness.newPage();
  await harness.signIn(page);
  await page.goto('/general-settings');
  await searchTable(page, name, 1);
  let patches = 0;
  page.on('request', (request) => {
    if (request.method() === 'PATCH' && new URL(request.url()).pathname.startsWith('/api/v1/configurations')) patches++;
  });
  await rowWith(page, name).getByTestId('setting-edit').click();
  await page.getByRole('dialog').waitFor();
  return { page, patches: () => patches };
}

describe('system settings in the form', () => {
  test('a number setting takes no letters and nothing out of its range; a value inside it is saved', async () => {
    const { page, patches } = await editSetting('audio_max_size_mb');
    const dialog = page.getByRole('dialog');
    const value = page.getByTestId('setting-value');
    expect(await dialog.getByText('From 0.1 to 1024').count()).toBe(1);
    expect(await page.getByTestId('setting-description').inputValue()).toBe('Largest audio file accepted, in MB');

    await value.fill('');
    await value.pressSequentially('abc');
    expect(await value.inputValue()).toBe('');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => dialog.getByText('Required', { exact: true }).count()).toBe(1);
    expect(await value.getAttribute('aria-invalid')).toBe('true');

    await value.pressSequentially('5000');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => dialog.getByText('At most 1024', { exact: true }).count()).toBe(1);
    await value.fill('0.01');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => dialog.getByText('At least 0.1', { exact: true }).count()).toBe(1);
    expect(patches()).toBe(0);
    expect(await storedValue('audio_max_size_mb')).toBe('10');

    await value.fill('25');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => page.getByText('Setting edited.').count()).toBe(1);
    expect(await storedValue('audio_max_size_mb')).toBe('25');
    await expect.poll(() => rowWith(page, 'audio_max_size_mb').locator('td').allTextContents()).toEqual(expect.arrayContaining(['25']));
  });

  test('a boolean setting is a switch, and the list says On or Off', async () => {
    const { page } = await editSetting('feature_second_ai_provider');
    const toggle = page.getByRole('dialog').getByRole('switch');
    expect(await toggle.count()).toBe(1);
    expect(await toggle.isChecked()).toBe(false);
    expect(await page.getByRole('dialog').getByRole('textbox', { name: 'Value' }).count()).toBe(0);
    // Mantine's switch input is visually hidden behind its track: the label is what a person clicks.
    await page.getByRole('dialog').locator('label', { hasText: 'Value' }).click();
    expect(await toggle.isChecked()).toBe(true);
    await page.getByTestId('setting-save').click();
    await expect.poll(() => page.getByText('Setting edited.').count()).toBe(1);
    expect(await storedValue('feature_second_ai_provider')).toBe('true');
    await expect.poll(() => rowWith(page, 'feature_second_ai_provider').locator('td').allTextContents()).toEqual(expect.arrayContaining(['On']));
    await harness.server.call({
      method: 'PATCH',
      url: `/configurations?where=${encodeURIComponent(JSON.stringify({ name: 'feature_second_ai_provider' }))}`,
      token,
      payload: { value: 'false' },
    });
  });
});
