import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, networkSettled, rowWith, searchTable, startConsole } from './harness.ts';

/**
 * The console in Portuguese, screen by screen: no text of the English catalogues is left on a
 * screen, in a label a screen reader says, or in a field; nor Mantine's own English labels, nor the
 * English the server stores (system settings' descriptions, audit entity names).
 */
let harness: ConsoleHarness;

type Tree = { [key: string]: string | Tree };
const texts = (tree: Tree): string[] => Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : texts(value)));
const catalogue = (file: string): Tree => JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', '..', file), 'utf8')) as Tree;
const inBoth = (en: string, pt: string): string[] => {
  const portuguese = new Set(texts(catalogue(pt)));
  return texts(catalogue(en)).filter((text) => !portuguese.has(text));
};

// Whole phrases only: a single short word ("Name") could be part of data or of a Portuguese text.
const english = [
  ...inBoth('apps/console/src/i18n/en.json', 'apps/console/src/i18n/pt.json'),
  ...inBoth('apps/console/src/i18n/en.screens.json', 'apps/console/src/i18n/pt.screens.json'),
  'Toggle password visibility',
  'Show password',
]
  .map((text) => text.split('{{')[0]!.trim())
  .filter((text) => text.length >= 8 && /\s/.test(text))
  // The administrator bootstrap creates is named "Administrator": data, not an interface text.
  .filter((text) => text !== 'Administrator');

/** Every text a person can read or hear on the page: visible text, labels, titles, placeholders and field values. */
async function shownTexts(page: Page): Promise<string> {
  return page.evaluate(() => {
    const parts = [document.body.innerText];
    for (const element of Array.from(document.querySelectorAll('[aria-label], [title], [placeholder], input, textarea'))) {
      for (const attribute of ['aria-label', 'title', 'placeholder']) parts.push(element.getAttribute(attribute) ?? '');
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) parts.push(element.value);
    }
    return parts.join('\n');
  });
}

const englishIn = (shown: string): string[] => english.filter((text) => shown.includes(text));

async function settle(page: Page): Promise<void> {
  await networkSettled(page);
  await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 10_000 }).toBe(0);
}

async function openAudit(): Promise<Page> {
  const { page } = await harness.newPage({ locale: 'pt-BR' });
  await harness.signIn(page);
  await page.goto('/audit');
  await page.getByTestId('table-row').first().waitFor();
  await settle(page);
  return page;
}

/** Filters the table by one value of an enum column through the advanced filters, checking the names offered first. */
async function filterBy(page: Page, column: string, value: string, checkOffered: (offered: string[]) => void): Promise<void> {
  await page.getByTestId('advanced-filters').click();
  await page.getByTestId('add-filter').click();
  await page.getByRole('option', { name: column }).click();
  await page.getByRole('combobox', { name: column }).click({ force: true });
  checkOffered(await page.getByRole('option').allTextContents());
  await page.getByRole('option', { name: value, exact: true }).click();
  // The list of options stays open over the button; a click event reaches it all the same.
  await page.getByTestId('apply-filters').dispatchEvent('click');
}

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  // Writes of several kinds, so that the audit screen names several entities.
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'filial-sul' } });
  const tenantId = tenant.json<{ id: number }>().id;
  const user = await harness.server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username: 'joana', password: 'senha-da-joana-1', email: 'joana@example.com', name: 'Joana', roles: [{ role: 'user', tenant_id: tenantId }] },
  });
  expect(user.statusCode, user.body).toBe(201);
  const setting = await harness.server.call({
    method: 'PATCH',
    url: `/configurations?where=${encodeURIComponent(JSON.stringify({ name: 'audio_max_size_mb' }))}`,
    token: admin,
    payload: { value: '12' },
  });
  expect(setting.statusCode, setting.body).toBe(200);
});
afterAll(() => harness.close());

describe('the console in Portuguese', () => {
  test('shows no English text on any screen', async () => {
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    await harness.signIn(page);
    const screens = [
      '/dashboard',
      '/destination',
      '/numbers',
      '/do-not-call',
      '/date-ranges',
      '/date-ranges/holidays',
      '/acl',
      '/reports',
      '/audios',
      '/visual-plan',
      '/general-settings',
      '/users',
      '/tenants',
      '/audit',
      '/account/profile',
      '/account/password',
      '/account/credentials',
      '/account/license',
      '/account/system-info',
    ];
    const found: Record<string, string[]> = {};
    for (const screen of screens) {
      await page.goto(screen);
      // The app shell first: on a loaded machine the network can be idle before the first render (the body was still empty).
      await page.getByText('Configurações gerais').first().waitFor();
      await settle(page);
      const shown = await shownTexts(page);
      // The menu is on every screen: proof that the texts were read, in Portuguese.
      expect(shown, screen).toContain('Configurações gerais');
      const left = englishIn(shown);
      if (left.length > 0) found[screen] = left;
    }
    expect(found).toEqual({});
  });

  test('general settings: the system settings are described in Portuguese, in the list and in the form', async () => {
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    await harness.signIn(page);
    await page.goto('/general-settings');
    await searchTable(page, 'audio_max_size_mb', 1);
    expect(await rowWith(page, 'audio_max_size_mb').locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['Maior arquivo de áudio aceito, em MB']),
    );
    await page.getByTestId('setting-edit').click();
    await page.getByTestId('setting-description').waitFor();
    expect(await page.getByTestId('setting-description').inputValue()).toBe('Maior arquivo de áudio aceito, em MB');
    expect(await page.getByRole('dialog').getByText('De 0.1 a 1024').count()).toBe(1);
    expect(englishIn(await shownTexts(page))).toEqual([]);
    await page.getByTestId('table-search').fill('outbound');
    await page.keyboard.press('Escape');
    await searchTable(page, 'outbound_allow', 2);
    expect(await page.getByTestId('table-row').allTextContents()).toEqual([expect.stringContaining('Desligado'), expect.stringContaining('Desligado')]);
    expect(englishIn(await shownTexts(page))).toEqual([]);
  });

  test('general settings: categories and types are shown and filtered in Portuguese; an own category as written', async () => {
    const admin = await harness.server.login();
    const own = await harness.server.call({ method: 'POST', url: '/configurations', token: admin, payload: { name: 'ajuste.proprio', category: 'tuning' } });
    expect(own.statusCode, own.body).toBe(201);
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    await harness.signIn(page);
    await page.goto('/general-settings');
    await searchTable(page, 'audio_max_size_mb', 1);
    const systemCells = await rowWith(page, 'audio_max_size_mb').locator('td').allTextContents();
    expect(systemCells).toEqual(expect.arrayContaining(['Áudio', 'Sistema']));
    for (const stored of ['audio', 'sistema']) expect(systemCells).not.toContain(stored);
    await page.getByTestId('setting-edit').click();
    await page.getByTestId('setting-category').waitFor();
    expect(await page.getByTestId('setting-category').inputValue()).toBe('Áudio');
    expect(await page.getByTestId('setting-type').inputValue()).toBe('Sistema');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await searchTable(page, 'ajuste.proprio', 1);
    expect(await rowWith(page, 'ajuste.proprio').locator('td').allTextContents()).toEqual(expect.arrayContaining(['tuning', 'Personalizada']));

    // The category filter offers the known categories by their Portuguese names.
    await page.getByTestId('table-search').fill('');
    await filterBy(page, 'Categoria', 'Segurança', (offered) => expect(offered).toEqual(['Áudio', 'Conversas', 'Recursos', 'Geral', 'Licença', 'Relatórios', 'Segurança']));
    await expect
      .poll(async () => (await page.getByTestId('table-row').allTextContents()).map((row) => /outbound_allow_(loopback|private)/.exec(row)?.[0] ?? row))
      .toEqual(['outbound_allow_loopback', 'outbound_allow_private']);
    expect(await page.getByTestId('table-row').first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['Segurança', 'Sistema']));
  });

  test('audit: the entity filter lists the entities by their Portuguese names ("Usuário" shows the user rows)', async () => {
    const page = await openAudit();
    await filterBy(page, 'Entidade', 'Usuário', (offered) => expect(offered).toEqual(expect.arrayContaining(['Usuário', 'Configuração geral', 'Entrada de ACL'])));
    const entities = async () => {
      const rows = await page.getByTestId('table-row').all();
      return Promise.all(rows.map(async (row) => (await row.locator('td').allTextContents()).includes('Usuário')));
    };
    await expect.poll(entities).not.toContain(false);
    expect((await entities()).length).toBeGreaterThan(0);
  });

  test('audit: entities are named in Portuguese, in the list and in the details', async () => {
    const page = await openAudit();
    const cells = await page.getByTestId('table-row').locator('td').allTextContents();
    expect(cells).toEqual(expect.arrayContaining(['Tenant', 'Usuário', 'Configuração geral']));
    for (const raw of ['configuration', 'user', 'tenant', 'General setting', 'User']) expect(cells).not.toContain(raw);
    await page.getByTestId('audit-details').first().click();
    await page.getByTestId('audit-details-content').waitFor();
    expect(await page.getByTestId('audit-details-content').textContent()).toMatch(/^(Criação|Alteração|Remoção)(Tenant|Usuário|Configuração geral) /);
  });

  test("users: the password field's visibility button is labelled in Portuguese", async () => {
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    await harness.signIn(page);
    await page.goto('/users');
    await page.getByTestId('user-new').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('user-password').waitFor();
    expect(await dialog.getByRole('button', { name: 'Mostrar ou ocultar a senha' }).count()).toBe(1);
    expect(await dialog.locator('[aria-label="Toggle password visibility"]').count()).toBe(0);
    expect(englishIn(await shownTexts(page))).toEqual([]);
  });
});
