/**
 * The WhatsApp template block's form in the plan editor (issue 39, docs/channels-whatsapp.md,
 * "Templates in plans"): a template chosen among the number's synced ones, each parameter mapped
 * (typed as Meta types it, Meta's example as its hint), the unmapped-parameter issue gone once all
 * are, and a template Meta has not approved flagged; in English and in Portuguese.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseTemplate } from '../../server/src/lib/whatsapp-template-parse.ts';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { orderUpdate, pendingTemplate } from '../../server/test/whatsapp-template-fixtures.ts';
import { closeIssuesWithEscape, openIssues } from './canvas-locators.ts';
import { type ConsoleHarness, createNumber, createPlan, openPlanEditor, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

let harness: ConsoleHarness;
let member: TenantMember;

const node = (id: string, type: string, x: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });
const nodeOf = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'watemplates');
  const number = await createNumber(harness.server, member.token, {
    number: '+551160000001',
    provider: 'whatsapp',
    whatsapp_phone_number_id: '306540352242921',
    whatsapp_token: 'EAAG-e2e-token',
    whatsapp_app_secret: 'e2e-secret',
  });
  // The number's templates as the sync stores them.
  const now = new Date().toISOString();
  for (const meta of [orderUpdate, pendingTemplate]) {
    const parsed = parseTemplate(meta);
    await harness.server.ctx.db
      .insertInto('whatsapp_templates')
      .values({ tenant_id: member.tenantId, number_id: number.id, meta_id: String(meta.id), name: parsed.name, language: parsed.language, category: parsed.category, status: parsed.status, components: JSON.stringify(meta.components ?? []), rejected_reason: '', synced_time: now })
      .execute();
  }
});
afterAll(() => harness?.close());

const texts = {
  'en-US': {
    unmappedIssue: 'Template parameter unmapped',
    // Each parameter named as its field is labelled, never by its key (header.1).
    headerParameter: 'parameter Header 1 unmapped',
    notApprovedIssue: 'WhatsApp template not approved',
    currency: 'Body 2 · text',
    sendAs: 'currency',
    pending: /new_offer \(en_US\) · pending/,
    exit: 'Confirm',
  },
  'pt-BR': {
    unmappedIssue: 'Parâmetro do modelo sem valor',
    headerParameter: 'o parâmetro Cabeçalho 1 do modelo',
    notApprovedIssue: 'Modelo do WhatsApp não aprovado',
    currency: 'Corpo 2 · texto',
    sendAs: 'moeda',
    pending: /new_offer \(en_US\) · pendente/,
    exit: 'Confirm',
  },
} as const;

describe.each(Object.entries(texts))('the template block’s form, in %s', (locale, text) => {
  test('a template chosen, its parameters mapped one by one until the issue is gone; one not approved is flagged', async () => {
    const plan = await createPlan(harness.server, member.token, `Order update ${locale}`, {
      nodes: [node('start', 'start', 0), node('order', 'whatsapp_template', 300)],
      edges: [edge('start', 'next', 'order')],
    });
    const page = await openPlanEditor(harness, plan.id, member, { locale });
    await nodeOf(page, 'order').click();
    const panel = page.getByTestId('block-panel');
    await panel.getByTestId('field-template_name').click();
    await page.getByRole('option', { name: 'order_update (en_US)' }).click();

    // One row per parameter, typed as Meta types it, Meta's example as its hint; each flagged until mapped.
    const rows = ['header.1', 'body.1', 'body.2', 'body.3', 'button.2'];
    for (const [index] of rows.entries()) await expect.poll(() => panel.getByTestId(`field-parameters.${index}.value`).isVisible()).toBe(true);
    expect(await panel.getByLabel(text.currency, { exact: true }).getAttribute('placeholder')).toMatch(/BRL 12.50/);
    // Meta types the placeholder as text: sent as a currency by choice.
    await panel.getByTestId('field-parameters.2.type').click();
    await page.getByRole('option', { name: text.sendAs, exact: true }).click();
    const flagged = () => panel.locator('input[data-testid^="field-parameters."][aria-invalid="true"]').count();
    await expect.poll(flagged).toBe(5);
    // The quick replies are the block's exits.
    await expect.poll(() => nodeOf(page, 'order').getByText(text.exit, { exact: true }).isVisible()).toBe(true);
    await page.getByTestId('editor-issues').click();
    await expect.poll(() => page.getByTestId('issue-warning').filter({ hasText: text.unmappedIssue }).count()).toBe(5);
    expect(await page.getByTestId('issue-warning').filter({ hasText: text.headerParameter }).count()).toBe(1);
    expect(await page.getByTestId('issue-warning').filter({ hasText: 'header.1' }).count()).toBe(0);
    await closeIssuesWithEscape(page);
    await screenshotStates(page, 'template-unmapped', { group: 'whatsapp-template-block' });

    const values = ['#1234', '{{name}}', 'BRL 12.50', 'May 5', 'abc'];
    for (const [index, value] of values.entries()) await panel.getByTestId(`field-parameters.${index}.value`).fill(value);
    await expect.poll(flagged).toBe(0);
    await openIssues(page);
    expect(await page.getByTestId('issue-warning').filter({ hasText: text.unmappedIssue }).count()).toBe(0);
    await closeIssuesWithEscape(page);
    await screenshotStates(page, 'template-mapped', { group: 'whatsapp-template-block' });

    // A template Meta has not approved: said beside the field and among the issues.
    await panel.getByTestId('field-template_name').click();
    await page.getByRole('option', { name: text.pending }).click();
    await expect.poll(() => panel.getByTestId('template-state-template_name').isVisible()).toBe(true);
    await page.getByTestId('editor-issues').click();
    await expect.poll(() => page.getByTestId('issue-warning').filter({ hasText: text.notApprovedIssue }).count()).toBe(1);
    await screenshotStates(page, 'template-not-approved', { group: 'whatsapp-template-block' });
    await page.keyboard.press('Escape');

    // Saved as the form made it: what was typed for a key the new template has too is kept.
    await page.getByTestId('editor-save').click();
    await expect
      .poll(async () => (await harness.server.call({ method: 'GET', url: `/visual-plans/${plan.id}/document`, token: member.token })).json<{ nodes: Array<{ id: string; data: Record<string, unknown> }> }>().nodes.find((saved) => saved.id === 'order')?.data)
      .toMatchObject({ template_name: 'new_offer', language: 'en_US', parameters: [{ key: 'body.1', value: '{{name}}' }], buttons: [] });
  });
});
