import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chooseOption, type ConsoleHarness, rowWith, startConsole } from './harness.ts';

let harness: ConsoleHarness;
let admin: string;
let acmeId: number;
beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.server.login();
  const acme = await harness.server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'acme' } });
  acmeId = acme.json<{ id: number }>().id;
  const globex = await harness.server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'globex' } });
  const globexId = globex.json<{ id: number }>().id;
  for (const [tenant, name] of [[globexId, 'Globex desk'], [acmeId, 'Acme lobby']] as const) {
    const seeded = await harness.server.call({ method: 'POST', url: '/destinations', token: admin, tenant, payload: { name, kind: 'voice', uri: `sip:${tenant}@example.com` } });
    expect(seeded.statusCode, seeded.body).toBe(201);
  }
});
afterAll(() => harness.close());

/** The administrator on a screen, working on all tenants (0) or on one. */
async function openAs(path: string, tenantId: number): Promise<Page> {
  const { page } = await harness.newPage();
  await page.addInitScript((id) => localStorage.setItem('default-tenant', String(id)), tenantId);
  await harness.signIn(page);
  await page.goto(path);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  return page;
}

const columnHeaders = (page: Page) => page.getByTestId('data-table').locator('thead th').allTextContents();

describe('an administrator on all tenants', () => {
  test('creating a destination asks for its tenant first, and the record lands in that tenant', async () => {
    const page = await openAs('/destination', 0);
    const posts: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/destinations')) posts.push(request.headers()['x-tenant-id']);
    });
    await page.getByTestId('destination-new').click();
    await page.getByTestId('destination-name').fill('Acme reception');
    await page.getByTestId('destination-uri').fill('sip:100@acme.example.com');
    await page.getByTestId('destination-save').click();
    // Nothing is sent without a tenant: the field says what is missing.
    const tenantField = page.getByRole('dialog').getByTestId('record-tenant');
    await expect.poll(() => tenantField.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('dialog').getByText('Required').count()).toBe(1);
    expect(posts).toEqual([]);

    await chooseOption(page, 'record-tenant', 'acme');
    await page.getByTestId('destination-save').click();
    await expect.poll(() => page.getByText('Destination created.').count()).toBe(1);
    expect(posts).toEqual([String(acmeId)]);
    const stored = await harness.server.call({ method: 'GET', url: '/destinations', token: admin, tenant: acmeId });
    expect(stored.json()).toContainEqual(expect.objectContaining({ name: 'Acme reception', tenant_id: acmeId }));
  });

  test("the list names each row's tenant; on one tenant there is no such column, nor a tenant field in the form", async () => {
    const page = await openAs('/destination', 0);
    await expect.poll(() => rowWith(page, 'Globex desk').count()).toBe(1);
    expect(await columnHeaders(page)).toContain('Tenant');
    const headers = await columnHeaders(page);
    const tenantCell = rowWith(page, 'Globex desk').locator('td').nth(headers.indexOf('Tenant'));
    expect(await tenantCell.textContent()).toBe('globex');

    const single = await openAs('/destination', acmeId);
    await expect.poll(() => rowWith(single, 'Acme lobby').count()).toBe(1);
    expect(await columnHeaders(single)).not.toContain('Tenant');
    await single.getByTestId('destination-new').click();
    await single.getByTestId('destination-name').waitFor();
    expect(await single.getByTestId('record-tenant').count()).toBe(0);
  });
});
