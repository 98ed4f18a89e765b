import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';

interface SystemInfo {
  processor: string;
  ram_gib: number;
  ram_free_gib: number;
}

let harness: ConsoleHarness;
let adminToken: string;
let tenantId: number;
beforeAll(async () => {
  harness = await startConsole();
  adminToken = await harness.server.login();
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token: adminToken, payload: { name: 'acme' } });
  tenantId = tenant.json<{ id: number }>().id;
  // One user per area, so that changing a name or a password leaves the others alone.
  for (const username of ['paula', 'pedro', 'kate']) {
    const response = await harness.server.call({
      method: 'POST',
      url: '/users',
      token: adminToken,
      payload: { username, password: `${username}-password`, email: `${username}@acme.example`, name: username, roles: [{ role: 'user', tenant_id: tenantId }] },
    });
    expect(response.statusCode).toBe(201);
  }
});
afterAll(() => harness.close());

async function openAs(path: string, username: string, locale = 'en-US'): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, username, `${username}-password`);
  await page.goto(path);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  return page;
}

/** The error text Mantine shows under a field, found through the field's aria-describedby. */
function fieldError(page: Page, testId: string): Promise<string> {
  return page.getByTestId(testId).evaluate((input) => {
    const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((id) => id.endsWith('-error'));
    return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
  });
}

/** Counts the requests whose path is `path` sent with `method` from now on. */
function countRequests(page: Page, method: string, path: string): () => number {
  let count = 0;
  page.on('request', (request) => {
    if (request.method() === method && new URL(request.url()).pathname === path) count++;
  });
  return () => count;
}

const whoami = (token: string) => harness.server.call({ method: 'GET', url: '/whoami', token });

describe('my profile', () => {
  test('changing name and e-mail saves them, and the user menu shows the new name', async () => {
    const page = await openAs('/account/profile', 'paula');
    expect(await page.getByTestId('profile-username').inputValue()).toBe('paula');
    expect(await page.getByTestId('profile-name').inputValue()).toBe('paula');
    expect(await page.getByTestId('user-menu').textContent()).toContain('paula');
    await page.getByTestId('profile-name').fill('Paula Souza');
    await page.getByTestId('profile-email').fill('Paula.Souza@Acme.example');
    await page.getByTestId('profile-save').click();
    await expect.poll(() => page.getByText('Profile saved.').count()).toBe(1);
    // The server lowercases the e-mail, and the form shows what it kept.
    await expect.poll(() => page.getByTestId('profile-email').inputValue()).toBe('paula.souza@acme.example');
    await expect.poll(() => page.getByTestId('user-menu').textContent()).toContain('Paula Souza');
    await page.getByTestId('user-menu').click();
    await expect.poll(() => page.getByText('paula.souza@acme.example · User').count()).toBe(1);

    const profile = await whoami(await harness.server.login('paula', 'paula-password'));
    expect(profile.json()).toMatchObject({ username: 'paula', name: 'Paula Souza', email: 'paula.souza@acme.example' });
  });

  test('a bad e-mail is refused before anything is sent, with the translated message', async () => {
    const page = await openAs('/account/profile', 'paula', 'pt-BR');
    const patches = countRequests(page, 'PATCH', '/api/v1/me');
    await page.getByTestId('profile-email').fill('not-an-email');
    await page.getByTestId('profile-save').click();
    await expect.poll(() => fieldError(page, 'profile-email')).toBe('E-mail inválido');
    await page.getByTestId('profile-name').fill('');
    await page.getByTestId('profile-save').click();
    await expect.poll(() => fieldError(page, 'profile-name')).toBe('Obrigatório');
    expect(patches()).toBe(0);
    const profile = await whoami(await harness.server.login('paula', 'paula-password'));
    expect(profile.json<{ email: string }>().email).not.toBe('not-an-email');
  });
});

describe('change password', () => {
  test('a confirmation that does not match is refused in the browser', async () => {
    const page = await openAs('/account/password', 'pedro');
    const posts = countRequests(page, 'POST', '/api/v1/me/password');
    await page.getByTestId('password-current').fill('pedro-password');
    await page.getByTestId('password-new').fill('pedro-new-password');
    await page.getByTestId('password-confirmation').fill('pedro-other-password');
    await page.getByTestId('password-save').click();
    await expect.poll(() => fieldError(page, 'password-confirmation')).toBe('The passwords do not match');
    expect(await fieldError(page, 'password-new')).toBe('');
    // Too short as well: the length is checked along with the match.
    await page.getByTestId('password-new').fill('short');
    await page.getByTestId('password-save').click();
    await expect.poll(() => fieldError(page, 'password-new')).toBe('At least 8 characters');
    expect(posts()).toBe(0);
  });

  test('a wrong current password is refused by the server, on its field', async () => {
    const page = await openAs('/account/password', 'pedro');
    await page.getByTestId('password-current').fill('not-my-password');
    await page.getByTestId('password-new').fill('pedro-new-password');
    await page.getByTestId('password-confirmation').fill('pedro-new-password');
    const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/me/password'));
    await page.getByTestId('password-save').click();
    expect((await answer).status()).toBe(400);
    await expect.poll(() => fieldError(page, 'password-current')).toBe('The current password is wrong.');
    // The old password still works.
    expect((await harness.server.call({ method: 'POST', url: '/login', payload: { username: 'pedro', password: 'pedro-password' } })).statusCode).toBe(200);
  });

  test('after a change, the new password signs in and the old one no longer does', async () => {
    const page = await openAs('/account/password', 'pedro');
    await page.getByTestId('password-current').fill('pedro-password');
    await page.getByTestId('password-new').fill('pedro-new-password');
    await page.getByTestId('password-confirmation').fill('pedro-new-password');
    await page.getByTestId('password-save').click();
    await expect.poll(() => page.getByText('Password changed.').count()).toBe(1);
    // The form is emptied.
    expect(await page.getByTestId('password-current').inputValue()).toBe('');
    expect(await page.getByTestId('password-new').inputValue()).toBe('');

    const { page: fresh } = await harness.newPage();
    await fresh.goto('/login');
    await fresh.getByLabel('Username or e-mail').fill('pedro');
    await fresh.getByLabel('Password', { exact: true }).fill('pedro-password');
    await fresh.getByTestId('login-submit').click();
    await expect.poll(() => fresh.getByTestId('login-error').textContent()).toBe('Invalid username or password.');
    expect(new URL(fresh.url()).pathname).toBe('/login');

    await harness.signIn(fresh, 'pedro', 'pedro-new-password');
    await expect.poll(() => fresh.getByTestId('user-menu').textContent()).toContain('pedro');
  });
});

describe('credentials', () => {
  test('a new API key is shown once, works against the API, and stops working when revoked', async () => {
    const page = await openAs('/account/credentials', 'kate');
    await expect.poll(() => page.getByTestId('apikey-empty').textContent()).toBe('You have no API keys.');
    await page.getByTestId('apikey-new').click();
    await page.getByTestId('apikey-name').fill('nightly export');
    await page.getByTestId('apikey-save').click();

    const dialog = page.getByRole('dialog', { name: 'API key “nightly export” created' });
    await expect.poll(() => dialog.getByTestId('apikey-secret').count()).toBe(1);
    expect(await dialog.getByTestId('apikey-warning').textContent()).toBe('Copy the key now and keep it somewhere safe: it will not be shown again.');
    const key = ((await dialog.getByTestId('apikey-secret').textContent()) ?? '').trim();
    expect(key).toMatch(/^vxk_\d+_\S+$/);
    expect(await dialog.getByTestId('apikey-copy').count()).toBe(1);

    // The key calls the API as its owner.
    const asKey = await whoami(key);
    expect(asKey.statusCode).toBe(200);
    expect(asKey.json()).toMatchObject({ username: 'kate', email: 'kate@acme.example' });

    await dialog.getByTestId('apikey-done').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => page.content()).not.toContain(key);
    expect(await page.getByTestId('apikey-secret').count()).toBe(0);

    const listed = await harness.server.call({ method: 'GET', url: '/api-keys', token: await harness.server.login('kate', 'kate-password') });
    const [stored] = listed.json<{ name: string; prefix: string }[]>();
    expect(stored?.name).toBe('nightly export');
    expect(key.startsWith(stored!.prefix)).toBe(true);
    expect(stored!.prefix.length).toBeLessThan(key.length);
    await expect.poll(() => page.getByTestId('apikey-row').count()).toBe(1);
    const cells = await page.getByTestId('apikey-row').locator('td').allTextContents();
    expect(cells[0]).toBe('nightly export');
    expect(cells[1]).toBe(`${stored!.prefix}…`);
    // Reloaded, the page still has no trace of the secret.
    await page.reload();
    await expect.poll(() => page.getByTestId('apikey-row').count()).toBe(1);
    expect(await page.content()).not.toContain(key);
    // The call made with the key shows as its last use.
    const lastUsed = (await page.getByTestId('apikey-row').locator('td').allTextContents())[3];
    expect(lastUsed).not.toBe('Never');
    expect(lastUsed).toMatch(/\d{1,2}\/\d{1,2}\/\d{4}/);

    await page.getByRole('button', { name: 'Revoke the key “nightly export”' }).click();
    await expect.poll(() => page.getByText('Revoke the key “nightly export”? Programs that use it will stop working. This cannot be undone.').count()).toBe(1);
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('API key revoked.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('apikey-row').count()).toBe(0);
    expect(await page.getByTestId('apikey-empty').count()).toBe(1);
    expect((await whoami(key)).statusCode).toBe(401);
  });
});

describe('system info', () => {
  test("shows the server's processor and memory, and refreshes on demand", async () => {
    const page = await openAs('/account/system-info', 'kate');
    const info = (await harness.server.call({ method: 'GET', url: '/system/info', token: adminToken })).json<SystemInfo>();
    await expect.poll(() => page.getByTestId('system-info-processor').textContent()).toBe(info.processor);
    // Used memory moves between two calls; the total does not.
    const ram = (await page.getByTestId('system-info-ram').textContent()) ?? '';
    // Used of total: a free figure in brackets read as ambiguous.
    expect(ram).toMatch(new RegExp(`^[\\d.,]+ GiB of ${info.ram_gib.toLocaleString('en').replace(/[.,]/g, '\\$&')} GiB used$`));
    expect(await page.getByText('Memory (RAM)', { exact: true }).count()).toBe(1);
    // Exact: a processor's own name may hold the word ("Intel Xeon Processor").
    expect(await page.getByText('Processor', { exact: true }).count()).toBe(1);
    for (const field of ['server-time', 'motherboard', 'disk']) {
      expect(((await page.getByTestId(`system-info-${field}`).textContent()) ?? '').length).toBeGreaterThan(0);
    }
    // Kate is a user: what the licence is bound to, and the address, are an administrator's.
    for (const field of ['hardware-id', 'ip-address']) expect(await page.getByTestId(`system-info-${field}`).textContent()).toBe('Shown to administrators only');

    const refresh = page.getByRole('button', { name: 'Refresh' });
    expect(await refresh.getAttribute('data-testid')).toBe('system-info-refresh');
    const asked = page.waitForResponse((response) => response.url().endsWith('/api/v1/system/info'));
    await refresh.click();
    expect((await asked).status()).toBe(200);
    await expect.poll(() => page.getByTestId('system-info-processor').textContent()).toBe(info.processor);
  });

  test('says in Portuguese that the hardware id is for administrators', async () => {
    const page = await openAs('/account/system-info', 'kate', 'pt-BR');
    await expect.poll(() => page.getByTestId('system-info-hardware-id').textContent()).toBe('Visível só para administradores');
  });
});
