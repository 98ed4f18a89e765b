import { systemSettings } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chooseOption, type ConsoleHarness, rowWith, searchTable, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

interface RoleRow {
  role: string;
  tenant_id: number | null;
}
interface UserRow {
  id: number;
  username: string;
  email: string;
  roles: RoleRow[];
}
interface SettingRow {
  id: number;
  name: string;
  value: string;
  category: string;
  description: string;
  type: string;
}

let harness: ConsoleHarness;
let token: string;
let acmeId: number;
beforeAll(async () => {
  harness = await startConsole();
  token = await harness.server.login();
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token, payload: { name: 'acme' } });
  acmeId = tenant.json<{ id: number }>().id;
});
afterAll(() => harness.close());

const filterQuery = (where: Record<string, unknown>) => `filter=${encodeURIComponent(JSON.stringify({ where }))}`;

async function usersNamed(username: string): Promise<UserRow[]> {
  const response = await harness.server.call({ method: 'GET', url: `/users?${filterQuery({ username })}`, token });
  return response.json<UserRow[]>();
}

async function settingNamed(name: string): Promise<SettingRow | undefined> {
  const response = await harness.server.call({ method: 'GET', url: `/configurations?${filterQuery({ name })}`, token });
  return response.json<SettingRow[]>()[0];
}

async function seedUser(username: string, email: string): Promise<number> {
  const response = await harness.server.call({
    method: 'POST',
    url: '/users',
    token,
    payload: { username, email, name: username, password: 'seeded-password', roles: [{ role: 'user', tenant_id: acmeId }] },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: number }>().id;
}

async function openAs(path: string, locale = 'en-US'): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page);
  await page.goto(path);
  await page.getByTestId('table-row').first().waitFor();
  return page;
}

async function fillUser(page: Page, user: { username: string; name: string; email: string; password: string }): Promise<void> {
  await page.getByTestId('user-username').fill(user.username);
  await page.getByTestId('user-name').fill(user.name);
  await page.getByTestId('user-email').fill(user.email);
  await page.getByTestId('user-password').fill(user.password);
}

describe('users', () => {
  test('a fresh install: the first user goes into the tenant it starts with, offered in the form', async () => {
    const page = await openAs('/users');
    await page.getByTestId('user-new').click();
    await fillUser(page, { username: 'first', name: 'First User', email: 'first@example.com', password: 'first-password' });
    await page.getByTestId('user-tenant').click();
    await expect.poll(() => page.getByRole('option', { name: 'default' }).isVisible()).toBe(true);
    expect(await page.getByText('No tenant found').isVisible()).toBe(false);
    await page.getByRole('option', { name: 'default' }).click();
    await page.getByTestId('user-save').click();
    await expect.poll(() => page.getByText('User created.').count()).toBe(1);
    const [saved] = await usersNamed('first');
    const tenants = (await harness.server.call({ method: 'GET', url: `/tenants?${filterQuery({ name: 'default' })}`, token })).json<{ id: number }[]>();
    expect(saved?.roles.map(({ tenant_id }) => tenant_id)).toEqual([tenants[0]!.id]);
  });

  test('create a user with the role "User" in a tenant: the row appears and the roles are saved', async () => {
    const page = await openAs('/users');
    await page.getByTestId('user-new').click();
    await fillUser(page, { username: 'ursula', name: 'Ursula Lima', email: 'ursula@acme.example', password: 'ursula-password' });
    expect(await page.getByTestId('user-role').inputValue()).toBe('User');
    await chooseOption(page, 'user-tenant', 'acme');
    await page.getByTestId('user-save').click();
    await expect.poll(() => page.getByText('User created.').count()).toBe(1);
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => rowWith(page, 'ursula@acme.example').count()).toBe(1);
    expect(await rowWith(page, 'ursula@acme.example').locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['Ursula Lima', 'ursula', 'ursula@acme.example', 'User']),
    );

    const [saved] = await usersNamed('ursula');
    expect(saved?.roles.map(({ role, tenant_id }) => ({ role, tenant_id }))).toEqual([{ role: 'user', tenant_id: acmeId }]);
  });

  test('choosing "Administrator" hides the tenant field and saves no tenant', async () => {
    const page = await openAs('/users');
    await page.getByTestId('user-new').click();
    await fillUser(page, { username: 'adele', name: 'Adele Admin', email: 'adele@acme.example', password: 'adele-password' });
    // A tenant picked first is dropped when the role becomes Administrator.
    await chooseOption(page, 'user-tenant', 'acme');
    await chooseOption(page, 'user-role', 'Administrator');
    await expect.poll(() => page.getByTestId('user-tenant').count()).toBe(0);
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/v1/users') && request.method() === 'POST');
    await page.getByTestId('user-save').click();
    expect((await sent).postDataJSON()).toMatchObject({ roles: [{ role: 'admin', tenant_id: null }] });
    await expect.poll(() => page.getByText('User created.').count()).toBe(1);
    await expect.poll(() => rowWith(page, 'adele@acme.example').getByText('Administrator').count()).toBe(1);

    const [saved] = await usersNamed('adele');
    expect(saved?.roles.map(({ role, tenant_id }) => ({ role, tenant_id }))).toEqual([{ role: 'admin', tenant_id: null }]);
  });

  test('validation: required fields, a short password and a bad e-mail, in English and in Portuguese', async () => {
    for (const [locale, required, short, badEmail] of [
      ['en-US', 'Required', 'At least 8 characters', 'Invalid e-mail'],
      ['pt-BR', 'Obrigatório', 'No mínimo 8 caracteres', 'E-mail inválido'],
    ] as const) {
      const page = await openAs('/users', locale);
      let posts = 0;
      page.on('request', (request) => {
        if (request.url().endsWith('/api/v1/users') && request.method() === 'POST') posts++;
      });
      await page.getByTestId('user-new').click();
      const dialog = page.getByRole('dialog');
      await page.getByTestId('user-save').click();
      // Username, name, e-mail, password and tenant; the role starts as "User".
      await expect.poll(() => dialog.getByText(required, { exact: true }).count()).toBe(5);

      await fillUser(page, { username: 'valid', name: 'Valid Name', email: 'not-an-email', password: 'short' });
      await chooseOption(page, 'user-tenant', 'acme');
      await page.getByTestId('user-save').click();
      await expect.poll(() => dialog.getByText(short, { exact: true }).count()).toBe(1);
      expect(await dialog.getByText(badEmail, { exact: true }).count()).toBe(1);
      expect(await dialog.getByText(required, { exact: true }).count()).toBe(0);
      expect(await page.getByTestId('user-email').getAttribute('aria-invalid')).toBe('true');
      expect(posts).toBe(0);
    }
    expect(await usersNamed('valid')).toEqual([]);
  });

  test('a duplicate e-mail is refused with the catalogue text on the field', async () => {
    await seedUser('first-owner', 'taken@acme.example');
    const page = await openAs('/users');
    await page.getByTestId('user-new').click();
    await fillUser(page, { username: 'second-owner', name: 'Second Owner', email: 'taken@acme.example', password: 'second-password' });
    await chooseOption(page, 'user-tenant', 'acme');
    await page.getByTestId('user-save').click();
    await expect.poll(() => page.getByRole('dialog').getByText('This e-mail is already in use.').count()).toBe(1);
    expect(await page.getByTestId('user-email').getAttribute('aria-invalid')).toBe('true');
    // The modal stays open with what was typed, and nothing was created.
    expect(await page.getByTestId('user-username').inputValue()).toBe('second-owner');
    expect(await usersNamed('second-owner')).toEqual([]);
  });

  test("the signed-in admin's own row cannot be selected and offers no remove button; another user can be removed, through the confirm dialog", async () => {
    const doomedId = await seedUser('doomed', 'doomed@acme.example');
    const page = await openAs('/users');

    await searchTable(page, 'admin@', 1);
    const ownRow = page.getByTestId('table-row');
    expect(await ownRow.getByRole('checkbox', { name: 'Select row' }).isDisabled()).toBe(true);
    // A button that only answers "you cannot" is a dead end: the own row offers editing alone.
    expect(await ownRow.getByTestId('user-edit').count()).toBe(1);
    expect(await ownRow.getByTestId('user-remove').count()).toBe(0);

    await searchTable(page, 'doomed', 1);
    expect(await page.getByTestId('table-row').getByRole('checkbox', { name: 'Select row' }).isDisabled()).toBe(false);
    await page.getByTestId('user-remove').click();
    await expect.poll(() => page.getByText('Remove this record? This cannot be undone.').count()).toBe(1);
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    expect((await harness.server.call({ method: 'GET', url: `/users/${doomedId}`, token })).statusCode).toBe(404);
  });
});

describe('general settings', () => {
  test('the system settings have no remove action and cannot be selected', async () => {
    const page = await openAs('/general-settings');
    await expect.poll(() => rowWith(page, 'audio_max_size_mb').count()).toBe(1);
    // The type is shown by its translated name.
    const systemRows = page.getByTestId('table-row').filter({ has: page.getByRole('cell', { name: 'System', exact: true }) });
    // The settings every installation brings (all on the first page of ten).
    expect(await systemRows.count()).toBe(Object.keys(systemSettings).length);
    for (const row of await systemRows.all()) {
      expect(await row.getByTestId('setting-remove').count()).toBe(0);
      expect(await row.getByTestId('setting-edit').count()).toBe(1);
      expect(await row.getByRole('checkbox', { name: 'Select row' }).isDisabled()).toBe(true);
    }
    expect(await rowWith(page, 'audio_max_size_mb').locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['audio_max_size_mb', '10', 'Audio', 'System', 'Largest audio file accepted, in MB']),
    );
  });

  test('the conversations’ settings (retention, transfer timeout) show under their category, in English and Portuguese', async () => {
    for (const [locale, category, retention] of [
      ['en-US', 'Conversations', 'Days closed conversations, their messages and files are kept'],
      ['pt-BR', 'Conversas', 'Dias em que as conversas encerradas, suas mensagens e arquivos são mantidos'],
    ] as const) {
      const page = await openAs('/general-settings', locale);
      await page.getByTestId('table-search').fill('conversation');
      await expect.poll(() => page.getByTestId('table-row').count()).toBe(2);
      const row = rowWith(page, 'conversations_retention_days');
      expect(await row.isVisible()).toBe(true);
      expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['conversations_retention_days', '365', category, retention]));
      expect(await rowWith(page, 'conversation_transfer_timeout_seconds').locator('td').allTextContents()).toEqual(expect.arrayContaining(['120', category]));
      await screenshotStates(page, 'conversation-settings', { group: 'admin' });
      // The user form of a fresh install offers the tenant it starts with.
      await page.goto('/users');
      await page.getByTestId('user-new').click();
      await page.getByTestId('user-tenant').click();
      await expect.poll(() => page.getByRole('option', { name: 'default' }).isVisible()).toBe(true);
      await screenshotStates(page, 'user-form-default-tenant', { group: 'admin' });
    }
  });

  test('create a custom setting, edit it (clearing the description), then remove it', async () => {
    const page = await openAs('/general-settings');
    await page.getByTestId('setting-new').click();
    await page.getByTestId('setting-name').fill('e2e.greeting');
    await page.getByTestId('setting-value').fill('hello');
    await page.getByTestId('setting-category').fill('tests');
    await page.getByTestId('setting-description').fill('What the plan says first');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => page.getByText('Setting created.').count()).toBe(1);
    await searchTable(page, 'e2e.greeting', 1);
    expect(await page.getByTestId('table-row').locator('td').allTextContents()).toEqual(
      expect.arrayContaining(['e2e.greeting', 'hello', 'tests', 'Custom', 'What the plan says first']),
    );
    const created = await settingNamed('e2e.greeting');
    expect(created).toMatchObject({ value: 'hello', category: 'tests', type: 'custom', description: 'What the plan says first' });

    await page.getByTestId('setting-edit').click();
    expect(await page.getByTestId('setting-name').isDisabled()).toBe(true);
    expect(await page.getByTestId('setting-value').inputValue()).toBe('hello');
    await page.getByTestId('setting-value').fill('good morning');
    await page.getByTestId('setting-description').fill('');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => page.getByText('Setting edited.').count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: 'good morning' }).count()).toBe(1);
    expect(await settingNamed('e2e.greeting')).toMatchObject({ value: 'good morning', category: 'tests', description: '' });
    await expect.poll(() => page.getByTestId('table-row').locator('td').allTextContents()).toEqual(expect.arrayContaining(['—']));

    await page.getByTestId('setting-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-empty').count()).toBe(1);
    expect(await settingNamed('e2e.greeting')).toBeUndefined();
  });

  test('a duplicate name is refused with the catalogue text', async () => {
    const page = await openAs('/general-settings');
    await page.getByTestId('setting-new').click();
    await page.getByTestId('setting-name').fill('audio_max_size_mb');
    await page.getByTestId('setting-value').fill('99');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => page.getByRole('dialog').getByText('This name is already in use.').count()).toBe(1);
    expect(await page.getByTestId('setting-name').getAttribute('aria-invalid')).toBe('true');
    expect(await settingNamed('audio_max_size_mb')).toMatchObject({ value: '10', type: 'sistema' });
  });

  test('the type "sistema" is reserved: refused in the browser with its own message', async () => {
    const page = await openAs('/general-settings');
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/configurations') posts++;
    });
    await page.getByTestId('setting-new').click();
    await page.getByTestId('setting-name').fill('e2e.fake_system');
    await page.getByTestId('setting-type').fill('sistema');
    await page.getByTestId('setting-save').click();
    await expect.poll(() => page.getByRole('dialog').getByText('The type “sistema” is reserved for system settings.').count()).toBe(1);
    expect(await page.getByTestId('setting-type').getAttribute('aria-invalid')).toBe('true');
    expect(posts).toBe(0);
    expect(await settingNamed('e2e.fake_system')).toBeUndefined();
  });
});

describe('system settings in the form take the input of their kind', () => {
  async function editSetting(name: string): Promise<{ page: Page; patches: () => number }> {
    const page = await openAs('/general-settings');
    await searchTable(page, name, 1);
    let patches = 0;
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && new URL(request.url()).pathname.startsWith('/api/v1/configurations')) patches++;
    });
    await rowWith(page, name).getByTestId('setting-edit').click();
    await page.getByRole('dialog').waitFor();
    return { page, patches: () => patches };
  }

  async function restore(name: string, value: string): Promise<void> {
    const { id } = (await settingNamed(name))!;
    await harness.server.call({ method: 'PATCH', url: `/configurations/${id}`, token, payload: { value } });
  }

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
    await dialog.getByText('Required', { exact: true }).waitFor();
    expect(await value.getAttribute('aria-invalid')).toBe('true');

    await value.pressSequentially('5000');
    await page.getByTestId('setting-save').click();
    await dialog.getByText('At most 1024', { exact: true }).waitFor();
    await value.fill('0.01');
    await page.getByTestId('setting-save').click();
    await dialog.getByText('At least 0.1', { exact: true }).waitFor();
    expect(patches()).toBe(0);
    expect((await settingNamed('audio_max_size_mb'))?.value).toBe('10');

    await value.fill('25');
    await page.getByTestId('setting-save').click();
    await page.getByText('Setting edited.').waitFor();
    expect((await settingNamed('audio_max_size_mb'))?.value).toBe('25');
    await expect.poll(() => rowWith(page, 'audio_max_size_mb').locator('td').allTextContents()).toEqual(expect.arrayContaining(['25']));
    await restore('audio_max_size_mb', '10');
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
    await page.getByText('Setting edited.').waitFor();
    expect((await settingNamed('feature_second_ai_provider'))?.value).toBe('true');
    await expect.poll(() => rowWith(page, 'feature_second_ai_provider').locator('td').allTextContents()).toEqual(expect.arrayContaining(['On']));
    await restore('feature_second_ai_provider', 'false');
  });
});

describe('audit', () => {
  test('a tenant created in the console is listed, and its details show before and after side by side', async () => {
    const page = await openAs('/tenants');
    await page.getByTestId('tenant-new').click();
    await page.getByTestId('tenant-name').fill('audited');
    await page.getByTestId('tenant-save').click();
    await expect.poll(() => page.getByText('Tenant created.').count()).toBe(1);
    const tenants = await harness.server.call({ method: 'GET', url: `/tenants?${filterQuery({ name: 'audited' })}`, token });
    const tenantId = tenants.json<{ id: number }[]>()[0]!.id;

    await page.goto('/audit');
    await page.getByTestId('table-row').first().waitFor();
    // Newest first: the tenant just created heads the list.
    const cells = await page.getByTestId('table-row').first().locator('td').allTextContents();
    // The entity by its name in the user's language, not the log's "tenant".
    expect(cells.slice(1, 5)).toEqual(['admin', 'Create', 'Tenant', String(tenantId)]);

    await page.getByTestId('table-row').first().getByTestId('audit-details').click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByTestId('audit-after').count()).toBe(1);
    expect(await dialog.getByRole('heading', { name: 'Before' }).count()).toBe(1);
    expect(await dialog.getByRole('heading', { name: 'After' }).count()).toBe(1);
    expect(await dialog.getByTestId('audit-before').textContent()).toBe('Nothing recorded.');
    expect(await dialog.getByTestId('audit-after').textContent()).toContain('"name": "audited"');
    expect(await dialog.getByTestId('audit-after').textContent()).toContain(`"id": ${tenantId}`);
    // Side by side: same top, "before" on the left (polled: the dialog may still be opening).
    await expect
      .poll(async () => {
        const before = await dialog.getByTestId('audit-before').boundingBox();
        const after = await dialog.getByTestId('audit-after').boundingBox();
        return Boolean(before && after && Math.abs(before.y - after.y) < 2 && before.x + before.width <= after.x);
      })
      .toBe(true);
  });
});
