import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, q, type TenantMember } from '../../server/test/harness.ts';
import { type ConsoleHarness, createPlan, openPlanEditor, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

/** Goals (issue 41, docs/rollouts.md): a block marked as a goal in its panel, its mark on the canvas, the goal on the report. */
let harness: ConsoleHarness;
let member: TenantMember;

type Body = Record<string, unknown>;
const node = (id: string, type: string, x: number, data: Body = {}) => ({ id, type, position: { x, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });
const nodeOf = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'goaltenant');
});
afterAll(() => harness.close());

describe('goals', () => {
  test('a block marked as a goal shows its flag and name on the canvas, is saved, and the report names the goal reached', async () => {
    const plan = await createPlan(harness.server, member.token, 'Checkout', {
      nodes: [node('start', 'start', 0), node('paid', 'play_message', 260, { voice_text: 'Thanks for paying', chat_text: 'Thanks for paying' })],
      edges: [edge('start', 'next', 'paid')],
    });
    const page = await openPlanEditor(harness, plan.id, member);
    const mark = nodeOf(page, 'paid').getByTestId('node-goal');
    await expect.poll(() => mark.count()).toBe(0);
    await nodeOf(page, 'paid').click();
    await page.getByTestId('block-panel').getByTestId('block-goal').fill('paid');
    await expect.poll(() => mark.getAttribute('aria-label')).toBe('Goal: paid');
    expect(await mark.isVisible()).toBe(true);
    expect(await mark.textContent()).toBe('paid');
    await screenshotStates(page, 'goal-block', { group: 'goals' });

    await page.keyboard.press('Control+s');
    const draft = async () => (await harness.server.call({ method: 'GET', url: `/visual-plans/${plan.id}/document`, token: member.token })).json<VisualPlanDocument>();
    await expect.poll(async () => (await draft()).nodes.find((saved) => saved.id === 'paid')?.data).toMatchObject({ goal: 'paid', voice_text: 'Thanks for paying' });

    await page.getByTestId('editor-test').click();
    await page.getByTestId('test-panel').waitFor();
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Connected');
    await page.getByTestId('test-panel').getByText('Chat', { exact: true }).click();
    await page.getByTestId('test-panel-start').click();
    await expect.poll(() => page.getByTestId('test-panel-status').textContent()).toBe('The run has ended.');
    const reports = async () =>
      (await harness.server.call({ method: 'GET', url: `/reports?${q('filter', { where: { plan_id: plan.id, is_test: true } })}`, token: member.token })).json<{ id: number; goal: string | null }[]>();
    await expect.poll(async () => (await reports()).length).toBe(1);
    expect((await reports())[0]!.goal).toBe('paid');
    await page.goto(`/reports/${(await reports())[0]!.id}`);
    const summary = page.getByTestId('report-summary');
    await expect.poll(() => summary.getByRole('row', { name: /Goal reached/ }).textContent()).toBe('Goal reachedpaid');

    // Cleared: no mark, and the saved block has no goal.
    await page.goto(`/visual-plan/${plan.id}`);
    await nodeOf(page, 'paid').click();
    await page.getByTestId('block-panel').getByTestId('block-goal').fill('');
    await expect.poll(() => mark.count()).toBe(0);
    await page.keyboard.press('Control+s');
    await expect.poll(async () => (await draft()).nodes.find((saved) => saved.id === 'paid')?.data).not.toHaveProperty('goal');
  });

  test('in Portuguese, the mark reads "Meta"', async () => {
    const plan = await createPlan(harness.server, member.token, 'Pagamento', {
      nodes: [node('start', 'start', 0), node('pago', 'play_message', 260, { voice_text: 'Obrigado', chat_text: 'Obrigado', goal: 'pago' })],
      edges: [edge('start', 'next', 'pago')],
    });
    const page = await openPlanEditor(harness, plan.id, member, { locale: 'pt-BR' });
    const mark = nodeOf(page, 'pago').getByTestId('node-goal');
    await expect.poll(() => mark.getAttribute('aria-label')).toBe('Meta: pago');
    await nodeOf(page, 'pago').click();
    await expect.poll(() => page.getByTestId('block-panel').getByTestId('block-goal').inputValue()).toBe('pago');
    await screenshotStates(page, 'goal-block', { group: 'goals' });
  });
});
