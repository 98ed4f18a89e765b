import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';

let harness: ConsoleHarness;
let user: { username: string; password: string };
let tenantId: number;

/** A tenant and a member with role user in it, seeded through the API with the admin's token. */
beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'acltenant' } });
  expect(tenant.statusCode, tenant.body).toBe(201);
  tenantId = tenant.json<{ id: number }>().id;
  user = { username: 'acl-member', password: 'acl-member-password-1' };
  const created = await harness.server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { ...user, email: 'acl-member@example.com', name: 'ACL member', roles: [{ role: 'user', tenant_id: tenantId }] },
  });
  expect(created.statusCode, created.body).toBe(201);
});
afterAll(() => harness.close());

const storedEntries = async () => {
  const token = await harness.server.login(user.username, user.password);
  return (await harness.server.call({ method: 'GET', url: '/acl', token })).json<{ name: string; address: string; description: string; tenant_id: number }[]>();
};

describe('ACL screen', () => {
  test('a member creates an entry; the address is masked as typed and stored in canonical form', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, user.username, user.password);
    await page.goto('/acl');
    await page.getByTestId('acl-new').click();
    await page.getByTestId('acl-name').fill('Office');
    await page.getByTestId('acl-address').pressSequentially('2001:DB8:0:0::/64 x');
    expect(await page.getByTestId('acl-address').inputValue()).toBe('2001:DB8:0:0::/64');
    await page.getByTestId('acl-description').fill('Main office');
    await page.getByTestId('acl-save').click();
    await expect.poll(() => page.getByText('ACL entry created.').count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: '2001:db8::/64' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await storedEntries()).toEqual([expect.objectContaining({ name: 'Office', address: '2001:db8::/64', description: 'Main office', tenant_id: tenantId })]);
  });

  test('an invalid address or a duplicate is refused, in English and in Portuguese', async () => {
    for (const [locale, invalid, duplicate] of [
      ['en-US', 'Enter an IPv4 or IPv6 address, or a network in CIDR notation', 'An ACL entry with this address already exists.'],
      ['pt-BR', 'Informe um endereço IPv4 ou IPv6, ou uma rede em notação CIDR', 'Já existe uma entrada de ACL com este endereço.'],
    ] as const) {
      const { page } = await harness.newPage({ locale });
      await harness.signIn(page, user.username, user.password);
      await page.goto('/acl');
      await page.getByTestId('acl-new').click();
      await page.getByTestId('acl-name').fill('Bad');
      for (const address of ['10.0.0.256', '10.0.0.0/33', '2001:db8::1::2']) {
        await page.getByTestId('acl-address').fill(address);
        await page.getByTestId('acl-save').click();
        await expect.poll(() => page.getByRole('dialog').getByText(invalid).count()).toBe(1);
      }
      expect(await page.getByTestId('acl-address').getAttribute('aria-invalid')).toBe('true');
      // Another spelling of the network created above is the same address.
      await page.getByTestId('acl-address').fill('2001:db8::/64');
      await page.getByTestId('acl-save').click();
      await expect.poll(() => page.getByText(duplicate).count()).toBeGreaterThan(0);
      expect(await page.getByTestId('acl-address').inputValue()).toBe('2001:db8::/64');
    }
    expect(await storedEntries()).toHaveLength(1);
  });

  test('edit an entry in its prefilled modal, then remove it with the confirm dialog', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, user.username, user.password);
    await page.goto('/acl');
    await page.getByTestId('table-search').fill('Office');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    await page.getByTestId('acl-edit').click();
    expect(await page.getByTestId('acl-name').inputValue()).toBe('Office');
    expect(await page.getByTestId('acl-address').inputValue()).toBe('2001:db8::/64');
    await page.getByTestId('acl-name').fill('Branch office');
    await page.getByTestId('acl-address').fill('192.168.10.0/24');
    await page.getByTestId('acl-description').fill('');
    await page.getByTestId('acl-save').click();
    await expect.poll(() => page.getByText('ACL entry edited.').count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: '192.168.10.0/24' }).count()).toBe(1);
    expect(await storedEntries()).toEqual([expect.objectContaining({ name: 'Branch office', address: '192.168.10.0/24', description: '' })]);

    await page.getByTestId('table-row').filter({ hasText: 'Branch office' }).getByTestId('acl-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(0);
    expect(await storedEntries()).toEqual([]);
  });
});
