import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConsoleHarness, startConsole } from './harness.ts';

/** What a guest's console offers agrees with what the API lets a guest do (docs/decisions.md). */
let harness: ConsoleHarness;
const guest = { username: 'guest-viewer', password: 'guest-viewer-password-1' };
const member = { username: 'member-editor', password: 'member-editor-password-1' };

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'guests' } });
  const tenantId = tenant.json<{ id: number }>().id;
  for (const [person, role] of [
    [guest, 'guest'],
    [member, 'user'],
  ] as const) {
    const created = await harness.server.call({
      method: 'POST',
      url: '/users',
      token: admin,
      payload: { ...person, email: `${person.username}@example.com`, name: person.username, roles: [{ role, tenant_id: tenantId }] },
    });
    expect(created.statusCode, created.body).toBe(201);
  }
  const token = await harness.server.login(member.username, member.password);
  const entry = await harness.server.call({ method: 'POST', url: '/acl', token, payload: { name: 'Branch', address: '192.168.0.0/16' } });
  expect(entry.statusCode, entry.body).toBe(201);
});
afterAll(() => harness.close());

describe('a guest', () => {
  test('is offered no API key to create, and is told why', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, guest.username, guest.password);
    await page.goto('/account/credentials');
    await expect.poll(() => page.getByTestId('apikey-empty').count()).toBe(1);
    expect(await page.getByTestId('apikey-new').count()).toBe(0);
    expect(await page.getByTestId('apikey-guest-note').textContent()).toBe('Guests have read-only access: they cannot create API keys.');

    const memberView = await harness.newPage();
    await harness.signIn(memberView.page, member.username, member.password);
    await memberView.page.goto('/account/credentials');
    await expect.poll(() => memberView.page.getByTestId('apikey-new').count()).toBe(1);
    expect(await memberView.page.getByTestId('apikey-guest-note').count()).toBe(0);
  });

  test.each([
    ['en-US', 'View ACL entry', 'Edit ACL entry'],
    ['pt-BR', 'Ver entrada de ACL', 'Editar entrada de ACL'],
  ])('in %s, views a record in a dialog titled "%s", where a member edits it in "%s"', async (locale, viewTitle, editTitle) => {
    const { page } = await harness.newPage({ locale });
    await harness.signIn(page, guest.username, guest.password);
    await page.goto('/acl');
    await page.getByTestId('acl-view').click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByRole('heading', { name: viewTitle, exact: true }).count()).toBe(1);
    expect(await dialog.getByText(editTitle).count()).toBe(0);

    const other = await harness.newPage({ locale });
    await harness.signIn(other.page, member.username, member.password);
    await other.page.goto('/acl');
    await other.page.getByTestId('acl-edit').click();
    await expect.poll(() => other.page.getByRole('dialog').getByRole('heading', { name: editTitle, exact: true }).count()).toBe(1);
  });
});
