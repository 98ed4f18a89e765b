import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LicenseInfo, LicensePayload } from '@voxplan/contracts';
import errorsEn from '@voxplan/contracts/i18n/errors.en.json' with { type: 'json' };
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateLicenseKeyPair, issueLicense } from '../../server/src/modules/license/license-document.ts';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, type ConsoleHarness, networkSettled, startConsole } from './harness.ts';

// The vendor's private key is not in the repository: the test signs with its own pair, which the server is told to trust.
const keys = generateLicenseKeyPair();
const DAY_MS = 24 * 60 * 60 * 1000;

let harness: ConsoleHarness;
let admin: string;
let hardwareId: string;
let member: TenantMember;
/** What the local licence server answers a sync with. */
let licenseServerAnswer: string;
let licenseServer: Server;

const licence = (overrides: Partial<LicensePayload> = {}): LicensePayload => ({
  format: 1,
  serial: 'VX-2026-0042',
  client: 'Acme Telecom',
  product: 'Voxplan Enterprise',
  status: 'active',
  issued_at: new Date().toISOString(),
  // Ten days and a bit: the screen warns within 30 days.
  expires_at: new Date(Date.now() + 10 * DAY_MS - 60_000).toISOString(),
  hardware_id: hardwareId,
  limits: { concurrent_sessions: 3, tenants: 4, numbers: 6 },
  ...overrides,
});

/** The same licence with its limits raised but its signature kept: what someone editing the file would make. */
function tampered(document: string): string {
  const [payload, signature] = document.split('.') as [string, string];
  const content = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LicensePayload;
  content.limits.tenants = 1000;
  return `${Buffer.from(JSON.stringify(content)).toString('base64url')}.${signature}`;
}

async function serverInfo(): Promise<LicenseInfo> {
  const response = await harness.server.call({ method: 'GET', url: '/license', token: admin });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<LicenseInfo>();
}

async function openLicense(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: /^(License|Licença)$/ }).click();
  await page.waitForURL((url) => url.pathname === '/account/license');
  await page.getByTestId('license-state').waitFor();
}

const text = async (page: Page, testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();
const stateOf = (page: Page) => page.getByTestId('license-state').getAttribute('data-state');
const toastOf = (page: Page, type: 'success' | 'warning' | 'error') => page.locator(`[data-toast="${type}"] .mantine-Notification-description`).first().textContent();

beforeAll(async () => {
  licenseServer = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ license: licenseServerAnswer }));
    });
  });
  await new Promise<void>((resolve) => licenseServer.listen(0, '127.0.0.1', resolve));
  // LICENSE_FILE '': without the unlimited licence the test servers start with, the screen starts from none.
  harness = await startConsole({ LICENSE_PUBLIC_KEYS: keys.publicKey, LICENSE_FILE: '' });
  admin = await harness.server.login();
  hardwareId = (await serverInfo()).hardware_id;
  // Two tenants in use, and a user who is no administrator.
  member = await createTenantMember(harness.server, admin, 'north');
  await createTenantMember(harness.server, admin, 'south');
});
afterAll(async () => {
  await harness.close();
  await new Promise((resolve) => licenseServer.close(resolve));
});

describe('the licence screen', () => {
  test('without a licence: the state, the default limits with their use, the installation and hardware ids to copy, sync off with its reason', async () => {
    const { context, page } = await harness.newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await harness.signIn(page);
    await openLicense(page);

    expect(await stateOf(page)).toBe('without_license');
    expect(await text(page, 'license-state')).toBe('Without licence');
    expect(await page.getByTestId('license-without').count()).toBe(1);
    const info = await serverInfo();
    expect(info.usage.tenants).toBeGreaterThanOrEqual(2);
    expect(await text(page, 'license-usage-tenants-text')).toBe(`${info.usage.tenants} of ${info.default_limits.tenants}`);
    expect(await text(page, 'license-usage-numbers-text')).toBe(`${info.usage.numbers} of ${info.default_limits.numbers}`);
    expect(await text(page, 'license-usage-concurrent_sessions-text')).toBe(`0 of ${info.default_limits.concurrent_sessions}`);
    expect(await page.getByTestId('license-default-limits').count()).toBe(1);
    // Nothing to check again or remove.
    expect(await page.getByTestId('license-refresh').count()).toBe(0);
    expect(await page.getByTestId('license-remove').count()).toBe(0);

    expect(await text(page, 'license-hardware-id')).toBe(hardwareId);
    await page.getByTestId('license-hardware-id-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(hardwareId);
    // What the vendor names in a licence for every instance of this installation.
    expect(await text(page, 'license-installation-id')).toBe(info.installation_id);
    await page.getByTestId('license-installation-id-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(info.installation_id);

    // No licence server is set: the button says so and asks nothing of the server.
    const syncCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/license/sync')) syncCalls.push(request.url());
    });
    expect(await page.getByTestId('license-sync').getAttribute('aria-disabled')).toBe('true');
    expect(await text(page, 'license-sync-hint')).toContain('license_server_url');
    // Playwright will not click what says it is disabled; a user can, and nothing must happen.
    await page.getByTestId('license-sync').click({ force: true });
    await page.waitForTimeout(300);
    expect(syncCalls).toEqual([]);
  });

  test('only administrators see the licence in the user menu and may open it', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, member.username, member.password);
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'System info' }).waitFor();
    expect(await page.getByRole('menuitem', { name: 'License' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.goto('/account/license');
    await page.waitForURL((url) => url.pathname === '/dashboard');
  });

  test('activate a pasted licence, refuse a tampered file with its message, sync it blocked, remove it', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await openLicense(page);

    const document = issueLicense(licence(), keys.privateKey);
    await page.getByTestId('license-activate').click();
    // Mail clients wrap long lines: the pasted text keeps its breaks.
    await page.getByTestId('license-document').fill(document.replace(/(.{76})/g, '$1\n'));
    await page.getByTestId('license-activate-save').click();
    await expect.poll(() => toastOf(page, 'success')).toBe('Licence of Acme Telecom activated.');
    await expect.poll(() => stateOf(page)).toBe('active');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await text(page, 'license-state')).toBe('Active');
    expect(await text(page, 'license-client')).toBe('Acme Telecom');
    expect(await text(page, 'license-product')).toBe('Voxplan Enterprise');
    expect(await text(page, 'license-serial')).toBe('VX-2026-0042');
    const expires = new Date(licence().expires_at!).toLocaleDateString('en', { dateStyle: 'long' });
    expect(await text(page, 'license-expiration')).toBe(`${expires}Expires in 10 days`);
    expect(await text(page, 'license-activated')).toContain('by admin');
    const info = await serverInfo();
    expect(await text(page, 'license-usage-tenants-text')).toBe(`${info.usage.tenants} of 4`);
    expect(await text(page, 'license-usage-numbers-text')).toBe(`${info.usage.numbers} of 6`);
    expect(await text(page, 'license-usage-concurrent_sessions-text')).toBe('0 of 3');
    expect(await page.getByTestId('license-default-limits').count()).toBe(0);
    expect(await page.getByTestId('license-without').count()).toBe(0);

    // A file whose limits were edited after signing is refused, and the licence in force stays.
    await page.getByTestId('license-activate').click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('license-file').click();
    await (await chooser).setFiles({ name: 'acme.lic', mimeType: 'text/plain', buffer: Buffer.from(`${tampered(document)}\n`) });
    await expect.poll(() => page.getByTestId('license-document').inputValue()).toBe(tampered(document));
    await page.getByTestId('license-activate-save').click();
    await expect.poll(() => toastOf(page, 'error')).toBe(errorsEn.license_invalid_signature);
    expect(await page.getByRole('dialog').getByText(errorsEn.license_invalid_signature).count()).toBe(1);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await stateOf(page)).toBe('active');
    expect(await text(page, 'license-usage-tenants-text')).toBe(`${info.usage.tenants} of 4`);

    // Check again reads the same licence.
    await page.getByTestId('license-refresh').click();
    await expect.poll(() => toastOf(page, 'success')).toBe('Licence checked: Active.');

    // With a licence server set, sync asks it: this one has blocked the licence.
    const setting = await harness.server.call({
      method: 'PATCH',
      url: `/configurations?where=${encodeURIComponent(JSON.stringify({ name: 'license_server_url' }))}`,
      token: admin,
      payload: { value: `http://127.0.0.1:${(licenseServer.address() as AddressInfo).port}/sync` },
    });
    expect(setting.statusCode, setting.body).toBe(200);
    await page.reload();
    await page.getByTestId('license-state').waitFor();
    expect(await page.getByTestId('license-sync').getAttribute('aria-disabled')).toBeNull();
    expect(await page.getByTestId('license-sync-hint').count()).toBe(0);
    licenseServerAnswer = issueLicense(licence({ status: 'blocked' }), keys.privateKey);
    await page.getByTestId('license-sync').click();
    await expect.poll(() => toastOf(page, 'warning')).toBe('The licence server blocked this licence.');
    await expect.poll(() => stateOf(page)).toBe('blocked');
    expect(await text(page, 'license-last-sync')).toMatch(/: blocked$/);
    // Blocked: the defaults apply again.
    expect(await page.getByTestId('license-default-limits').count()).toBe(1);
    expect(await text(page, 'license-usage-tenants-text')).toBe(`${info.usage.tenants} of ${info.default_limits.tenants}`);

    // An answer that is no licence: the failure is said, and recorded under the last sync.
    licenseServerAnswer = 'not a licence';
    await page.getByTestId('license-sync').click();
    await expect.poll(() => toastOf(page, 'error')).toBe(errorsEn.license_sync_error);
    await expect.poll(() => text(page, 'license-last-sync')).toMatch(/: failed$/);
    expect(await stateOf(page)).toBe('blocked');

    await page.getByTestId('license-remove').click();
    await page.getByRole('dialog').getByText('Remove the licence?', { exact: false }).waitFor();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => toastOf(page, 'success')).toBe('Licence removed.');
    await expect.poll(() => stateOf(page)).toBe('without_license');
    expect(await page.getByTestId('license-none').count()).toBe(1);
    expect((await serverInfo()).license).toBeNull();
  });

  test('in Portuguese and both colour schemes: the texts, the date in the locale, and no accessibility violation', async () => {
    const activated = await harness.server.call({
      method: 'POST',
      url: '/license',
      token: admin,
      payload: { license: issueLicense(licence({ status: 'poc', expires_at: '2027-03-05T15:00:00.000Z' }), keys.privateKey) },
    });
    expect(activated.statusCode, activated.body).toBe(200);
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await harness.newPage({ locale: 'pt-BR', colorScheme });
      await harness.signIn(page);
      await openLicense(page);
      expect(await text(page, 'license-state')).toBe('Prova de conceito');
      expect(await text(page, 'license-expiration')).toBe('5 de março de 2027');
      expect(await page.getByTestId('license-expiry-warning').count()).toBe(0);
      expect(await text(page, 'license-usage-concurrent_sessions-text')).toBe('0 de 3');
      await networkSettled(page);
      found.push(...(await accessibilityViolations(page)).map((violation) => `${colorScheme}: ${violation}`));
      await page.getByTestId('license-activate').click();
      await page.getByTestId('license-document').waitFor();
      found.push(...(await accessibilityViolations(page)).map((violation) => `${colorScheme}, activation: ${violation}`));
    }
    expect(found).toEqual([]);
  });
});
