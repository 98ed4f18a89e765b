import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uploadCall } from '../../server/test/audio-fixtures.ts';
import { type ConsoleHarness, startConsole } from './harness.ts';

/** Guests read and never write (spec section 4): the console offers them no way to. */
let harness: ConsoleHarness;
const guest = { username: 'guest-reader', password: 'guest-reader-password-1' };
const member = { username: 'member-writer', password: 'member-writer-password-1' };

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  const tenant = await harness.server.call({ method: 'POST', url: '/tenants', token: admin, payload: { name: 'readonly' } });
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
  const entry = await harness.server.call({ method: 'POST', url: '/acl', token, payload: { name: 'Office', address: '10.0.0.0/8', description: 'HQ' } });
  expect(entry.statusCode, entry.body).toBe(201);
});

/** Opens a page as one of the two, in a language, and goes to a path. */
async function openAs(person: { username: string; password: string }, path: string, locale = 'en-US') {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, person.username, person.password);
  await page.goto(path);
  return page;
}
afterAll(() => harness.close());

describe('a guest', () => {
  test('sees the rows but no way to create, edit or remove them', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, guest.username, guest.password);
    await page.goto('/acl');
    await expect.poll(() => page.getByTestId('data-table').getByText('Office').count()).toBe(1);
    expect(await page.getByTestId('acl-new').count()).toBe(0);
    expect(await page.getByTestId('acl-edit').count()).toBe(0);
    expect(await page.getByTestId('acl-remove').count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
  });

  test("opens a row's form read-only, with nothing to submit", async () => {
    const { page } = await harness.newPage({ locale: 'pt-BR' });
    await harness.signIn(page, guest.username, guest.password);
    await page.goto('/acl');
    await page.getByTestId('acl-view').click();
    await expect.poll(() => page.getByTestId('acl-name').inputValue()).toBe('Office');
    expect(await page.getByTestId('acl-name').isDisabled()).toBe(true);
    expect(await page.getByTestId('acl-address').isDisabled()).toBe(true);
    expect(await page.getByRole('dialog').getByRole('button', { name: /salvar/i }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  test('a member of the same tenant still gets every write action', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, member.username, member.password);
    await page.goto('/acl');
    await expect.poll(() => page.getByTestId('acl-edit').count()).toBe(1);
    expect(await page.getByTestId('acl-new').count()).toBe(1);
    expect(await page.getByTestId('acl-remove').count()).toBe(1);
    await page.getByTestId('acl-edit').click();
    expect(await page.getByTestId('acl-name').isDisabled()).toBe(false);
  });
});

/** What a guest's console offers agrees with what the API lets a guest do (docs/decisions.md). */
describe("a guest's console and the API agree", () => {
  test('a guest is offered no API key to create, and is told why; a member is', async () => {
    const page = await openAs(guest, '/account/credentials');
    await page.getByTestId('apikey-empty').waitFor();
    expect(await page.getByTestId('apikey-new').count()).toBe(0);
    expect(await page.getByTestId('apikey-guest-note').textContent()).toBe('Guests have read-only access: they cannot create API keys.');

    const memberPage = await openAs(member, '/account/credentials');
    await memberPage.getByTestId('apikey-new').waitFor();
    expect(await memberPage.getByTestId('apikey-guest-note').count()).toBe(0);
  });

  test.each([
    ['en-US', 'View ACL entry', 'Edit ACL entry'],
    ['pt-BR', 'Ver entrada de ACL', 'Editar entrada de ACL'],
  ])('in %s, a guest views a record in a dialog titled "%s", where a member edits it in "%s"', async (locale, viewTitle, editTitle) => {
    const page = await openAs(guest, '/acl', locale);
    await page.getByTestId('acl-view').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: viewTitle, exact: true }).waitFor();
    expect(await dialog.getByText(editTitle).count()).toBe(0);

    const memberPage = await openAs(member, '/acl', locale);
    await memberPage.getByTestId('acl-edit').click();
    await memberPage.getByRole('dialog').getByRole('heading', { name: editTitle, exact: true }).waitFor();
  });

  test('views an audio in a dialog titled "View audio", where a member renames it in "Rename audio"', async () => {
    const token = await harness.server.login(member.username, member.password);
    const uploaded = await harness.server.call({ ...uploadCall({ name: 'Greeting' }), token });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const page = await openAs(guest, '/audios');
    await page.getByTestId('audio-view').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'View audio', exact: true }).waitFor();
    expect(await dialog.getByText('Rename audio').count()).toBe(0);

    const memberPage = await openAs(member, '/audios');
    await memberPage.getByTestId('audio-edit').click();
    await memberPage.getByRole('dialog').getByRole('heading', { name: 'Rename audio', exact: true }).waitFor();
  });
});
