import fs from 'node:fs/promises';
import type { VisualPlan, VisualPlanDocument, VisualPlanExport } from '@voxplan/contracts/visual-plan';
import { planFormatVersion } from '@voxplan/blocks/definitions';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, q, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, type ConsoleHarness, createPlan, rowWith, searchTable, startConsole } from './harness.ts';

/** The plans screen (/visual-plan): the tenant's plans, made, renamed, copied, imported, exported and removed. */
let harness: ConsoleHarness;
let admin: string;
let member: TenantMember;
const guest = { username: 'plans-guest', password: 'plans-guest-password-1', name: 'Gabriela Guest' };

type Body = Record<string, unknown>;
const node = (id: string, type: string, data: Body = {}) => ({ id, type, position: { x: 0, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });
/** Start, a message, hang up. */
const greeting = (text: string) => ({
  format_version: 1,
  nodes: [node('start', 'start'), node('hello', 'play_message', { voice_text: text }), node('end', 'hangup')],
  edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'end')],
});

const call = (options: Parameters<ConsoleHarness['server']['call']>[0]) => harness.server.call({ ...options, token: member.token });

/** A plan of the member's tenant made through the API, with `content` as its draft. */
const planWith = (name: string, content: Body) => createPlan(harness.server, member.token, name, content);

const storedNamed = async (name: string): Promise<VisualPlan | undefined> =>
  (await call({ method: 'GET', url: `/visual-plans?${q('filter', { where: { name } })}` })).json<VisualPlan[]>()[0];

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'planstenant');
  const created = await harness.server.call({
    method: 'POST',
    url: '/users',
    token: admin,
    payload: { username: guest.username, password: guest.password, email: 'plans-guest@example.com', name: guest.name, roles: [{ role: 'guest', tenant_id: member.tenantId }] },
  });
  expect(created.statusCode, created.body).toBe(201);
});
afterAll(() => harness.close());

async function openPlans(who: { username: string; password: string } = member, options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
  const { page } = await harness.newPage(options);
  await harness.signIn(page, who.username, who.password);
  await page.goto('/visual-plan');
  await page.getByTestId('data-table').waitFor();
  return page;
}

const dialog = (page: Page) => page.getByRole('dialog');

/** The error toasts shown now, with how their text wraps; read at once, since a toast lasts 3 s. */
const errorToasts = (page: Page) =>
  page
    .locator('[data-toast="error"] .mantine-Notification-description')
    .evaluateAll((elements) => elements.map((element) => ({ text: element.textContent, whiteSpace: getComputedStyle(element).whiteSpace })));

describe('plans screen', () => {
  test('a member creates a plan and lands on its editor; the list names who saved it, unpublished', async () => {
    const page = await openPlans();
    await page.getByTestId('plan-new').click();
    await expect.poll(() => dialog(page).getByText('New plan').count()).toBeGreaterThan(0);
    await page.getByTestId('plan-name').fill('Reception');
    await page.getByTestId('plan-description').fill('The front door');
    await page.getByTestId('plan-save').click();

    await page.waitForURL(/\/visual-plan\/\d+$/);
    const stored = await storedNamed('Reception');
    expect(stored).toMatchObject({ description: 'The front door', version: 1, published_version: null, updated_by: member.userId });
    expect(new URL(page.url()).pathname).toBe(`/visual-plan/${stored!.id}`);

    await page.goto('/visual-plan');
    await searchTable(page, 'Reception', 1);
    const cells = await rowWith(page, 'Reception').locator('td').allTextContents();
    // The member's name (createTenantMember names users after their username), not their id.
    expect(cells).toEqual(expect.arrayContaining(['Reception', 'The front door', '1', 'Not published', member.username]));
    expect(cells).not.toContain(String(member.userId));

    // The name is a link to the editor, as is the row's Open action.
    await rowWith(page, 'Reception').getByTestId('plan-open-link').click();
    await page.waitForURL(`**/visual-plan/${stored!.id}`);
    await page.goBack();
    await rowWith(page, 'Reception').getByTestId('plan-open').click();
    await page.waitForURL(`**/visual-plan/${stored!.id}`);
  });

  test('rename keeps the version; duplicate under the default name and under one of the user', async () => {
    const original = await planWith('Sales line', greeting('Sales'));
    const page = await openPlans();
    await searchTable(page, 'Sales line', 1);

    await rowWith(page, 'Sales line').getByTestId('plan-edit').click();
    await expect.poll(() => dialog(page).getByText('Rename plan').count()).toBe(1);
    expect(await page.getByTestId('plan-name').inputValue()).toBe('Sales line');
    await page.getByTestId('plan-name').fill('Sales desk');
    await page.getByTestId('plan-description').fill('Weekdays');
    await page.getByTestId('plan-save').click();
    await expect.poll(() => page.getByText('Plan renamed.').count()).toBe(1);
    await searchTable(page, 'Sales desk', 1);
    expect(await storedNamed('Sales desk')).toMatchObject({ id: original.id, description: 'Weekdays', version: original.version });

    await rowWith(page, 'Sales desk').getByTestId('plan-duplicate').click();
    await expect.poll(() => page.getByTestId('plan-duplicate-name').getAttribute('placeholder')).toBe('Sales desk (copy)');
    await page.getByTestId('plan-duplicate-save').click();
    await expect.poll(() => page.getByText('Plan “Sales desk (copy)” created as a copy.').count()).toBe(1);

    await searchTable(page, 'Sales desk', 2);
    await rowWith(page, 'Sales desk (copy)').getByTestId('plan-duplicate').click();
    await page.getByTestId('plan-duplicate-name').fill('Sales weekend');
    await page.getByTestId('plan-duplicate-save').click();
    await expect.poll(() => page.getByText('Plan “Sales weekend” created as a copy.').count()).toBe(1);

    const copy = await storedNamed('Sales weekend');
    expect(copy).toMatchObject({ description: 'Weekdays', published_version: null });
    const document = (await call({ method: 'GET', url: `/visual-plans/${copy!.id}/document` })).json<VisualPlanDocument>();
    expect(document.nodes.map((n) => [n.id, n.type])).toEqual(original.nodes.map((n) => [n.id, n.type]));
  });

  test('a plan another plan calls cannot be removed, and the message names the caller; once free, it goes', async () => {
    const callee = await planWith('Billing menu', greeting('Billing'));
    const caller = await planWith('Main menu', { format_version: 1, nodes: [node('start', 'start'), node('go', 'call_plan', { plan_id: callee.id })], edges: [edge('start', 'next', 'go')] });
    const page = await openPlans();
    await searchTable(page, 'Billing menu', 1);

    await rowWith(page, 'Billing menu').getByTestId('plan-remove').click();
    await page.getByTestId('confirm-remove').click();
    // One line each (pre-line): the code's text, then the plan.
    await expect
      .poll(() => errorToasts(page))
      .toEqual([{ text: `This plan is in use and cannot be removed.\nUsed by the plan “${caller.name}”`, whiteSpace: 'pre-line' }]);
    expect(await storedNamed('Billing menu')).toBeDefined();

    await call({ method: 'PUT', url: `/visual-plans/${caller.id}/document`, payload: { base_version: caller.version, ...greeting('No billing') } });
    await rowWith(page, 'Billing menu').getByTestId('plan-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    expect(await storedNamed('Billing menu')).toBeUndefined();
  });

  test('import a file, export it back with the same blocks; a published version is exported as it was published', async () => {
    // A file without a format version is read as the first format and exported in the current one.
    const file = { name: 'Night service', description: 'After hours', settings: { session_timeout_min: 5, chat_text: '', sync_with_voice_text: false, webhook: '' }, ...greeting('We are closed') };
    const page = await openPlans();
    await page.getByTestId('plan-import').click();
    await dialog(page).locator('input[type=file]').setInputFiles({ name: 'night.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    // Name and description come from the file, and may be changed.
    await expect.poll(() => page.getByTestId('plan-import-name').inputValue()).toBe('Night service');
    expect(await page.getByTestId('plan-import-description').inputValue()).toBe('After hours');
    await page.getByTestId('plan-import-save').click();
    await expect.poll(() => page.getByText('Plan “Night service” imported.').count()).toBe(1);
    await searchTable(page, 'Night service', 1);
    const imported = await storedNamed('Night service');

    const exported = async (item: string): Promise<{ name: string; content: VisualPlanExport }> => {
      await rowWith(page, 'Night service').getByTestId('plan-export').click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(item).click()]);
      return { name: download.suggestedFilename(), content: JSON.parse(await fs.readFile((await download.path())!, 'utf8')) as VisualPlanExport };
    };
    const draft = await exported('plan-export-draft');
    expect(draft.name).toBe('Night service.json');
    expect(draft.content).toMatchObject({ name: 'Night service', description: 'After hours', format_version: planFormatVersion, settings: { session_timeout_min: 5 }, edges: file.edges });
    expect(draft.content.nodes).toEqual(file.nodes.map((n) => expect.objectContaining({ id: n.id, type: n.type, position: n.position, data: expect.objectContaining(n.data) })));

    // Published, then the draft moves on: the version picker offers the published one, as it was.
    const published = await call({ method: 'POST', url: `/visual-plans/${imported!.id}/publish`, payload: { base_version: 1 } });
    expect(published.statusCode, published.body).toBe(200);
    await call({ method: 'PUT', url: `/visual-plans/${imported!.id}/document`, payload: { base_version: 1, ...greeting('Open again') } });
    await page.getByTestId('table-refresh').click();
    await expect.poll(() => rowWith(page, 'Night service').locator('td').allTextContents()).toEqual(expect.arrayContaining(['2', '1']));
    const version = await exported('plan-export-version-1');
    expect(version.content.nodes.find((n) => n.id === 'hello')?.data).toMatchObject({ voice_text: 'We are closed' });
    expect((await exported('plan-export-draft')).content.nodes.find((n) => n.id === 'hello')?.data).toMatchObject({ voice_text: 'Open again' });
  });

  test("a file whose plan is invalid is refused, its problems listed by block; a file that is not a plan, before it is sent", async () => {
    const page = await openPlans();
    await page.getByTestId('plan-import').click();
    const input = dialog(page).locator('input[type=file]');
    await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not json') });
    await expect.poll(() => dialog(page).getByText('This file is not a plan exported from Voxplan (a JSON object).').count()).toBe(1);

    const broken = { name: 'Broken', description: '', format_version: 1, nodes: [node('hello', 'play_message', { voice_text: 'Hi' }), node('end', 'hangup')], edges: [edge('hello', 'nowhere', 'end')] };
    await input.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(broken)) });
    await expect.poll(() => page.getByTestId('plan-import-name').inputValue()).toBe('Broken');
    await page.getByTestId('plan-import-save').click();
    await expect.poll(() => page.getByTestId('plan-issue').count()).toBe(2);
    const issues = await page.getByTestId('plan-issue').allTextContents();
    expect(issues).toEqual(expect.arrayContaining([expect.stringContaining('No start block'), expect.stringContaining('Unknown exit')]));
    expect(issues.find((issue) => issue.includes('Unknown exit'))).toContain('in connection “hello-nowhere”');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await storedNamed('Broken')).toBeUndefined();
  });

  test('a guest sees the plans and exports them, with no way to change anything', async () => {
    await planWith('Guest visible', greeting('Hi'));
    const page = await openPlans(guest);
    await searchTable(page, 'Guest visible', 1);
    const row = rowWith(page, 'Guest visible');
    for (const testId of ['plan-new', 'plan-import', 'plan-edit', 'plan-remove', 'plan-duplicate', 'bulk-remove']) expect(await page.getByTestId(testId).count(), testId).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await row.getByTestId('plan-view').count()).toBe(1);
    expect(await row.getByTestId('plan-open').count()).toBe(1);

    await row.getByTestId('plan-export').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('plan-export-draft').click()]);
    expect(download.suggestedFilename()).toBe('Guest visible.json');
  });

  test('in Portuguese, both colour schemes, without accessibility violations', async () => {
    const callee = await planWith('Suporte', greeting('Olá'));
    await planWith('Atendimento', { format_version: 1, nodes: [node('start', 'start'), node('go', 'call_plan', { plan_id: callee.id })], edges: [edge('start', 'next', 'go')] });
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await openPlans(member, { locale: 'pt-BR', colorScheme });
      await expect.poll(() => page.getByTestId('plan-new').textContent()).toBe('Novo plano');
      expect(await page.getByTestId('plan-import').textContent()).toBe('Importar');
      await searchTable(page, 'Suporte', 1);
      expect(await page.getByRole('columnheader').allTextContents()).toEqual(
        expect.arrayContaining(['Nome', 'Descrição', 'Versão', 'Versão publicada', 'Alterado por', 'Alterado em']),
      );
      expect(await rowWith(page, 'Suporte').getByTestId('plan-not-published').textContent()).toBe('Não publicado');
      expect(await accessibilityViolations(page)).toEqual([]);
      if (colorScheme === 'dark') continue;

      await rowWith(page, 'Suporte').getByTestId('plan-remove').click();
      await page.getByTestId('confirm-remove').click();
      await expect
        .poll(async () => (await errorToasts(page)).map((toast) => toast.text))
        .toEqual(['Este plano está em uso e não pode ser removido.\nUsado pelo plano “Atendimento”']);

      await rowWith(page, 'Suporte').getByTestId('plan-edit').click();
      await expect.poll(() => dialog(page).getByText('Renomear plano').count()).toBe(1);
      await page.getByTestId('plan-name').fill('');
      await page.getByTestId('plan-save').click();
      await expect.poll(() => dialog(page).getByText('Obrigatório').count()).toBe(1);
      expect(await accessibilityViolations(page)).toEqual([]);
    }
  });
});
